import Foundation
import HTTPTesting

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

    /// A configured, unstarted process (for tests that run a long-lived `serve`).
    public static func process(
        _ arguments: [String], directory: String, environment: [String: String] = [:]
    ) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
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
        try await BlockingThread.run("flow-bff \(arguments.first ?? "")") {
            try runBlocking(arguments, directory: directory, environment: environment)
        }
    }

    private static func runBlocking(_ arguments: [String], directory: String, environment: [String: String]) throws
        -> Run
    {
        let process = process(arguments, directory: directory, environment: environment)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self))
    }
}
