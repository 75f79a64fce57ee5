import BFFServer
import ContractVerifier
import Foundation
import HTTPCore
import PageModel
import Testing

/// `verify --capabilities PROFILE`: the crawl sends the profile's `X-Flow-Client` and fails on anything the
/// client cannot render.
@Suite struct CapabilityProfileTests {
    static let profiles: [CapabilityProfile] = {
        let bytes = FileManager.default.contents(atPath: repositoryRoot + "/config/capability-profiles.json")
        return (try? CapabilityProfile.load(Array(bytes ?? Data()))) ?? []
    }()

    @MainActor
    func crawl(_ url: URL, entry: [String], as profile: CapabilityProfile) async throws -> VerificationReport {
        let configuration = VerifierConfiguration(
            baseURL: url, entryPages: entry.map { PageTarget($0) ?? PageTarget(pageID: $0) }, maximumChunks: 50,
            timeout: 30,
            headers: [ClientCapabilities.headerName: profile.header], capabilities: profile)
        return try await ContractVerifier(configuration: configuration).run()
    }

    @Test func theBundledPagesPassForEveryProfileWithTheirDegradationsListed() async throws {
        #expect(Self.profiles.map(\.name).sorted() == ["current", "legacy", "minimal"])
        var degradationsByProfile: [String: Int] = [:]
        for profile in Self.profiles {
            let report = try await withPagesServer(repositoryRoot + "/pages", unchecked: false) { url, pages in
                try await crawl(url, entry: pages, as: profile)
            }
            #expect(report.passed, "\(profile.name):\n\(report.summary)")
            degradationsByProfile[profile.name] = report.pages.reduce(0) { $0 + $1.degradations.count }
        }
        #expect(degradationsByProfile["current"] == 0)
        #expect((degradationsByProfile["legacy"] ?? 0) > 0)
        #expect((degradationsByProfile["minimal"] ?? 0) > (degradationsByProfile["legacy"] ?? 0))
    }

    /// `CapabilityServers/loses_content`: a widget type no app renders (the typo `list_rwo`), a carousel whose
    /// author chose `"fallback": "drop"`, and a stepper without fallback.
    @Test func contentLostWithoutADropFallbackIsAViolation() async throws {
        let directory = repositoryRoot + "/Tests/ContractTests/CapabilityServers/loses_content/pages"
        func lost(_ name: String) async throws -> [String] {
            let profile = try #require(Self.profiles.first { $0.name == name })
            let report = try await withPagesServer(directory) { url, pages in
                try await crawl(url, entry: pages, as: profile)
            }
            return report.violations.filter { $0.code == ViolationCode.contentLost }.map(\.message).sorted()
        }
        // The current app renders carousels and steppers: only the typo is lost.
        let current = try await lost("current")
        #expect(current.count == 1)
        #expect(current.first?.contains("widget typo (list_rwo)") == true, "\(current)")
        // The legacy app renders neither: the stepper is lost too, the carousel's loss was chosen.
        let legacy = try await lost("legacy")
        #expect(legacy.count == 2, "\(legacy)")
        #expect(legacy.contains { $0.contains("widget qty (stepper)") })
        #expect(!legacy.contains { $0.contains("recs") })
    }

    @Test func aServerThatIgnoresTheClientHeaderIsCaught() async throws {
        let minimal = try #require(Self.profiles.first { $0.name == "minimal" })
        let raw = try RawServer(
            routesFile: repositoryRoot + "/Tests/ContractTests/CapabilityServers/ignores_client_header/routes.json")
        try raw.server.start()
        defer { raw.server.shutdown() }
        let report = try await crawl(raw.baseURL, entry: raw.table.entry, as: minimal)
        #expect(!report.passed)
        let violations = report.violations.filter { $0.code == ViolationCode.unrenderableWidget }
        #expect(
            violations.map(\.path).sorted() == ["/page/sections/0/widgets/0", "/page/sections/0/widgets/1"],
            "\(report.summary)")
        // The same server passes for the current app, which renders both.
        let current = try #require(Self.profiles.first { $0.name == "current" })
        #expect(
            try await crawl(raw.baseURL, entry: raw.table.entry, as: current).codes.contains(
                ViolationCode.unrenderableWidget) == false)
    }
}
