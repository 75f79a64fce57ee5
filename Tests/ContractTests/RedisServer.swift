import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `redis-server` child process on a free loopback port, without persistence, for the length of `body`.
/// `scripts/install-dependencies` installs Debian's `redis-server`; without it the test fails, it is not skipped.
struct RedisServer: Sendable {
    let port: Int
    let process: Process

    var url: String { "redis://127.0.0.1:\(port)" }

    static func with<Result>(_ body: (RedisServer) async throws -> Result) async throws -> Result {
        let server = try await start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Starts the server and returns once it logs that it accepts connections (10 s at most).
    static func start() async throws -> RedisServer {
        let executable = ["/usr/bin/redis-server", "/usr/local/bin/redis-server", "/opt/homebrew/bin/redis-server"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let executable else { throw Failure("redis-server is not installed: run scripts/install-dependencies") }
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--protected-mode", "yes",
        ]
        let output = FlowBFFProcess.pipe()
        process.standardOutput = output
        process.standardError = output
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                continuation.finish()
            } else {
                continuation.yield(String(decoding: data, as: UTF8.self))
            }
        }
        try await ProcessLaunchGate.shared.launching {
            try await BlockingThread.run("redis-server launch") { try FlowBFFProcess.launch(process) }
        }
        let server = RedisServer(port: port, process: process)
        let ready = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                var seen = ""
                for await chunk in lines {
                    seen += chunk
                    if seen.contains("Ready to accept connections") { return true }
                }
                return false
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))  // a bound on the wait, not a synchronisation
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard ready else {
            await server.stop()
            throw Failure("redis-server on port \(port) did not become ready")
        }
        return server
    }

    /// Kills the server (SIGKILL: the test process blocks SIGTERM for its HTTP servers and the child inherits that
    /// mask; nothing is persisted) and waits for it to exit, on a thread of its own (never the concurrency pool).
    func stop() async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        let process = process
        _ = try? await BlockingThread.run("redis-server exit") { process.waitUntilExit() }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A loopback port nothing listens on now (bound to 0, read, closed).
    static func freePort() throws -> Int {
        let fd = Platform.socket(family: AF_INET, nonBlocking: false)
        guard fd >= 0 else { throw Failure("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw Failure("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
