import ContractVerifier
import Foundation
import Testing

/// Requests a device never sends (issue 32): on by default, off with `--no-negative-probes`.
@Suite struct NegativeProbeTests {
    static func broken(_ name: String) throws -> BrokenServer {
        try #require(BrokenServer.all.first { $0.name == name })
    }

    @Test(arguments: ["action_accepts_unknown_widget", "unknown_page_html"])
    func switchedOffTheProbesSendNothingADeviceWouldNot(_ name: String) async throws {
        let report = try await Self.broken(name).run { url, entry in
            var configuration = VerifierConfiguration(
                baseURL: url, entryPages: entry.map { PageTarget(pageID: $0) }, maximumChunks: 50, timeout: 30)
            configuration.negativeProbes = false
            return try await ContractVerifier(configuration: configuration).run()
        }
        #expect(report.passed, "\(report.summary)")
    }

    @Test func eachProbeIsNamedInTheReport() async throws {
        let report = try await Self.broken("action_accepts_unknown_widget").run { url, entry in
            try await crawl(url, entry: entry)
        }
        let requests = report.violations.map(\.request)
        #expect(requests.contains { $0.hasSuffix("(unknown_widget probe)") }, "\(requests)")
        #expect(requests.contains { $0.hasSuffix("(undeclared_event probe)") }, "\(requests)")
    }
}
