import BFFTesting
import Foundation
import FoundationXML
import HTTPCore
import HTTPTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `flow-bff verify` as CI runs it: the built executable, real processes, loopback only.
@Suite struct VerifyCommandTests {
    static func process(_ arguments: [String]) -> Process {
        FlowBFFProcess.process(arguments, directory: repositoryRoot)
    }

    func run(_ arguments: [String]) async throws -> FlowBFFProcess.Run {
        try await FlowBFFProcess.run(arguments, directory: repositoryRoot)
    }

    static func temporaryFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("verify-\(UUID().uuidString)-\(name)").path
    }

    @Test func verifyPagesPassesPrintsCoverageAndWritesReports() async throws {
        let junit = Self.temporaryFile("junit.xml")
        let json = Self.temporaryFile("report.json")
        defer {
            try? FileManager.default.removeItem(atPath: junit)
            try? FileManager.default.removeItem(atPath: json)
        }
        let result = try await run(["verify", "--pages", "pages", "--report", "junit", junit, "--report", "json", json])
        #expect(result.status == 0, "\(result.output)\n\(result.errors)")
        #expect(result.output.contains("coverage: 8 pages"))
        #expect(result.output.contains("PASSED: no contract violations"))
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: junit))
        #expect(document.rootElement()?.attribute(forName: "failures")?.stringValue == "0")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json)))
        #expect((report as? [String: Any])?["passed"] as? Bool == true)
    }

    @Test func verifyURLAgainstASeparateServeGivesTheSameResult() async throws {
        let serve = Self.process(["serve", "--port", "0"])
        let output = FlowBFFProcess.pipe()
        serve.standardOutput = output
        serve.standardError = FileHandle.nullDevice
        let launched = UncheckedProcess(process: serve)
        try await ProcessLaunchGate.shared.launching {
            try await BlockingThread.run("serve launch") { try FlowBFFProcess.launch(launched.process) }
        }
        // Reading the pipe and waiting for the exit block: both run on threads of their own, not on the pool.
        let reader = output.fileHandleForReading.fileDescriptor
        let stop = { () async in
            serve.terminate()
            _ = try? await BlockingThread.run("serve exit") { serve.waitUntilExit() }
        }
        // The startup lines name the bound URL; read until they do (bounded: the process exits on failure).
        let (text, url) = try await BlockingThread.run("serve output") { () -> (String, String?) in
            var text = ""
            var url: String?
            for _ in 0..<200 where url == nil {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }  // other tests install signal handlers
                if count <= 0 { break }
                text += String(decoding: chunk[0..<count], as: UTF8.self)
                url = text.firstMatch(of: /serving .* on (http:\/\/127\.0\.0\.1:\d+)/).map { String($0.1) }
            }
            return (text, url)
        }
        guard let url else {
            await stop()
            Issue.record("serve did not print its URL: \(text)")
            return
        }
        // From here on its access log is read and dropped until it exits: a full pipe (64 KiB, about 200 lines)
        // would block serve in write(2), on the crawl's requests and on its last log line after SIGTERM.
        let drain = BlockingThread(name: "serve output drain")
        drain.post {
            var chunk = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
            }
        }
        drain.finish()
        // What `verify --pages` enters by: every page, a page made per data item with its sample parameters.
        let pages = [
            "cart", "checkout", "empty", "feed", "home", "order?orderID=o-1001", "order?orderID=o-1023",
            "order?orderID=o-1045", "orders", "product",
        ]
        let overURL: FlowBFFProcess.Run
        let inProcess: FlowBFFProcess.Run
        do {
            overURL = try await run(["verify", "--url", url] + pages.flatMap { ["--page", $0] })
            inProcess = try await run(["verify", "--pages", "pages"])
        } catch {
            await stop()
            throw error
        }
        await stop()
        #expect(overURL.status == 0, "\(overURL.output)\n\(overURL.errors)")
        #expect(inProcess.status == 0, "\(inProcess.output)\n\(inProcess.errors)")
        let coverage = { (run: FlowBFFProcess.Run) in
            run.output.split(separator: "\n").first { $0.hasPrefix("coverage:") }
        }
        #expect(coverage(overURL) != nil)
        #expect(coverage(overURL) == coverage(inProcess))
    }

    @Test func brokenPagesExit1WithTheirCodesOrAreRefusedWithoutUnchecked() async throws {
        let directory = brokenServersDirectory + "/mutation_missing_target/pages"
        let unchecked = try await run(["verify", "--pages", directory, "--unchecked"])
        #expect(unchecked.status == 1)
        #expect(unchecked.output.contains("mutation_failed"))
        #expect(unchecked.output.contains("FAILED: 1 violations (mutation_failed)"))
        let github = Self.temporaryFile("lint-github.txt")
        defer { try? FileManager.default.removeItem(atPath: github) }
        let refused = try await run(["verify", "--pages", directory, "--report", "github", github])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("mutation_target_not_found"))
        #expect(refused.errors.contains("not verifying"))
        // The lint error is annotated at the page file and the line of the canned answer's mutation.
        let annotations = try String(contentsOfFile: github, encoding: .utf8)
        #expect(annotations.hasPrefix("::error file=\(directory)/home.json,line="), "\(annotations)")
        #expect(annotations.contains("mutation_target_not_found"))
    }

    @Test func githubReportNamesThePageFileAndLineAndProgressGoesToStandardError() async throws {
        let directory = "Tests/ContractTests/BrokenServers/mutation_target_in_later_chunk/pages"
        let github = Self.temporaryFile("github.txt")
        defer { try? FileManager.default.removeItem(atPath: github) }
        let result = try await run([
            "verify", "--pages", directory, "--unchecked", "--progress", "lines", "--report", "github", github,
        ])
        #expect(result.status == 1, "\(result.output)\n\(result.errors)")
        #expect(result.output.contains("report written: \(github) (github)"))
        #expect(result.errors.contains("verify: 1/1 pages, 2 action requests, 1 violations (done)"), "\(result.errors)")
        #expect(!result.output.contains("verify: 1/1 pages"), "progress stays off standard output")
        let annotations = try String(contentsOfFile: github, encoding: .utf8)
        // The canned answer of home.clearDeals is on line 9 of home.json.
        #expect(
            annotations.hasPrefix(
                "::error file=\(directory)/home.json,line=9,title=verify mutation_failed (page home)::mutation_failed: "
            ))
        #expect(annotations.contains("::notice title=flow-bff verify::"))
        let quiet = try await run(["verify", "--pages", directory, "--unchecked", "--progress", "off"])
        #expect(quiet.status == 1)
        #expect(!quiet.errors.contains("verify: "))
        let badProgress = try await run(["verify", "--pages", "pages", "--progress", "sometimes"])
        #expect(badProgress.status == 2)
        let all = try await run(["verify", "--pages", "pages", "--all", "--progress", "off"])
        #expect(all.status == 0, "\(all.output)\n\(all.errors)")
        #expect(!all.output.contains("partial coverage"))
    }

    @Test func aBrokenFirstAnswerIsAViolationNotCannotReach() async throws {
        let raw = try RawServer(routesFile: brokenServersDirectory + "/first_answer_broken/routes.json")
        try raw.server.start()
        let result = try await run(["verify", "--url", raw.baseURL.absoluteString, "--progress", "off"])
        raw.server.shutdown()
        await raw.server.stoppedAsync()
        #expect(result.status == 1, "\(result.output)\n\(result.errors)")
        #expect(result.output.contains("page_failed"))
        #expect(!result.errors.contains("cannot reach"))
    }

    @Test func usageAndConnectionErrorsExit2() async throws {
        let neither = try await run(["verify"])
        #expect(neither.status == 2)
        #expect(neither.errors.contains("exactly one of --url URL and --pages DIR"))
        let badReport = try await run(["verify", "--pages", "pages", "--report", "xml", "out.xml"])
        #expect(badReport.status == 2)
        let unreachable = try await run(["verify", "--url", "http://127.0.0.1:1", "--timeout", "5"])
        #expect(unreachable.status == 2)
        #expect(unreachable.errors.contains("cannot reach http://127.0.0.1:1"))
        let help = try await run(["verify", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--report junit|json|github|markdown FILE"))
        #expect(help.output.contains("--baseline FILE"))
    }
}

/// A `Process` handed to the launch gate's closure.
// @unchecked Sendable: only launched, once, inside the gate, while the test awaits it.
struct UncheckedProcess: @unchecked Sendable {
    let process: Process
}
