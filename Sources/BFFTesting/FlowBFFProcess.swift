import Foundation
import HTTPTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the built `flow-bff` executable as a user does, for tests of the command line. `FLOW_BFF_*` variables of
/// the test process are not passed on, so a developer's environment cannot change the outcome.
public enum FlowBFFProcess {
    /// What a finished run printed and returned.
    public struct Run: Sendable {
        public var status: Int32
        public var output: String
        public var errors: String
    }

    /// `flow-bff` beside the test bundle (`swift build --build-tests` builds every product into that directory).
    public static var executable: String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.path.contains(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("flow-bff").path
    }

    /// A configured, unstarted process (for tests that run a long-lived `serve`; start it with ``launch(_:)``
    /// inside `ProcessLaunchGate.shared.launching`).
    public static func process(
        _ arguments: [String], directory: String, environment: [String: String] = [:], executable: String? = nil
    ) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? Self.executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FLOW_BFF_") }
            .merging(environment) { $1 }
        return process
    }

    /// Runs `flow-bff arguments…` in `directory` to completion. The process is run, read and waited for on a thread
    /// of its own: the caller suspends, it does not hold a thread of the Swift concurrency pool.
    public static func run(_ arguments: [String], directory: String, environment: [String: String] = [:])
        async throws -> Run
    {
        try await ProcessLaunchGate.shared.launching {
            try await BlockingThread.run("flow-bff \(arguments.first ?? "")") {
                try runBlocking(arguments, directory: directory, environment: environment)
            }
        }
    }

    /// Runs another program (`/usr/bin/curl`) to completion the same way: on a thread of its own, both pipes read.
    public static func run(tool: String, _ arguments: [String], directory: String = ".") async throws -> Run {
        try await ProcessLaunchGate.shared.launching {
            try await BlockingThread.run((tool as NSString).lastPathComponent) {
                try runBlocking(arguments, directory: directory, environment: [:], executable: tool)
            }
        }
    }

    private static func runBlocking(
        _ arguments: [String], directory: String, environment: [String: String], executable: String? = nil
    ) throws -> Run {
        let process = process(arguments, directory: directory, environment: environment, executable: executable)
        let output = pipe()
        let errors = pipe()
        process.standardOutput = output
        process.standardError = errors
        try launch(process)
        let (outputBytes, errorBytes) = readUntilExit(
            process, output.fileHandleForReading.fileDescriptor, errors.fileHandleForReading.fileDescriptor)
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: outputBytes, as: UTF8.self),
            errors: String(decoding: errorBytes, as: UTF8.self))
    }

    private static let launchLock = NSLock()

    /// Starts `process`, one launch at a time in this test process. Blocks for the few milliseconds of a spawn (and
    /// of a concurrent one): call it on a thread of your own (`BlockingThread`). Foundation creates descriptors for
    /// each launch (the socket that reports the child's exit) that a child spawned at the same moment inherits; that
    /// child then keeps the first one "running" forever: a `verify` run hung, exited but never reaped, while a
    /// `serve` launched beside it held its descriptors.
    public static func launch(_ process: Process) throws {
        launchLock.lock()
        defer { launchLock.unlock() }
        try process.run()
    }

    /// A pipe whose descriptors are close-on-exec, so children launched meanwhile by other tests do not inherit
    /// them (the child's own end is `dup2`ed onto its stdout or stderr, which clears the flag there). A leaked write
    /// end kept the reader of another run from ever seeing EOF: a `serve` child held it while its test waited for
    /// that run.
    public static func pipe() -> Pipe {
        let pipe = Pipe()
        for fd in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
        return pipe
    }

    /// Reads both pipes at once (a child filling one pipe while the other is read sequentially would deadlock)
    /// until both reach EOF or the child has exited and what it wrote is drained: a write end inherited by some
    /// other child must not keep this run waiting. Retries `EINTR`: other tests install signal handlers, and
    /// Foundation's `readDataToEndOfFile` traps on an interrupted `read`.
    private static func readUntilExit(_ process: Process, _ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
        var fds = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0),
        ]
        var bytes: [[UInt8]] = [[], []]
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var exited = false
        while fds.contains(where: { $0.fd >= 0 }) {
            // Once the child has exited, one last pass without waiting drains what it wrote.
            let ready = poll(&fds, nfds_t(fds.count), exited ? 0 : 100)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready == 0 {
                if exited { break }
                exited = !process.isRunning
                continue
            }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    fds[index].fd = -1
                } else {
                    bytes[index] += chunk[0..<count]
                }
            }
        }
        return (bytes[0], bytes[1])
    }
}
