import BFFServer
import BFFTesting
import ContractVerifier
import Foundation
import PageModel
import Testing

/// The report says what kinds of things the crawl exercised (issue 32): widget, action, effect and mutation types.
@Suite struct ExercisedKindsTests {
    @Test func theBundledPagesExerciseTheirTypes() async throws {
        let catalog = PageCatalog.load(directory: TestServer.bundledPages)
        let report = try await withTestServer { server in
            try await crawl(URL(string: server.baseURL)!, entry: catalog.pageIDs)
        }
        let exercised = report.coverage.exercised
        #expect(exercised.widgetTypes.isSuperset(of: ["button", "stepper", "list_row", "carousel", "text"]))
        #expect(exercised.actionTypes.isSuperset(of: ["api", "open_bottom_sheet"]))
        #expect(exercised.effectTypes.contains("toast"))
        #expect(exercised.mutationTypes.isSuperset(of: ["replaceWidget", "removeWidget"]))
        // The bundled pages were resolved for the crawl's small declaration, and home's minAppVersion (3.0.0 on
        // iOS and Android) for apps at and just below it.
        #expect(
            exercised.profiles == [
                "platform=ios", "platform=ios; version=3.0.0", "platform=ios; version=2.99999.99999",
                "platform=android; version=3.0.0", "platform=android; version=2.99999.99999",
            ])
        #expect(report.summary.contains("5 client profiles (platform=android; version=2.99999.99999, "))
        #expect(report.summary.contains("exercised: \(exercised.widgetTypes.count) widget types (accordion, banner, "))
        let json = String(decoding: try report.jsonData(), as: UTF8.self)
        #expect(json.contains(#""mutationTypes""#))
    }

    @Test func aCoverageThresholdFailsARunThatFallsShort() async throws {
        func verify(minimum: Double) async throws -> VerificationReport {
            try await withTestServer { server in
                var configuration = VerifierConfiguration(
                    baseURL: URL(string: server.baseURL)!, entryPages: [PageTarget(pageID: "cart")], maximumChunks: 50,
                    maximumPageLoads: 1, timeout: 30)
                configuration.minimumCoverage = minimum
                return try await ContractVerifier(configuration: configuration).run()
            }
        }
        let strict = try await verify(minimum: 100)
        let percent = strict.coverage.exercised.percent()
        #expect(percent > 0 && percent < 100, "the cart alone meets some kinds: \(percent)")
        #expect(strict.violationCount == 0)
        #expect(!strict.passed)
        #expect(
            strict.summary.contains(
                "FAILED: exercised \(Int(percent))% of the standard kinds, below --min-coverage 100%"),
            "\(strict.summary)")
        #expect(try await verify(minimum: percent.rounded(.down)).passed)
    }
}

extension VerifyCommandTests {
    @Test func minCoverageFailsTheRunAndChecksItsValue() async throws {
        let strict = try await run(["verify", "--pages", "pages", "--min-coverage", "100%"])
        #expect(strict.status == 1, "\(strict.output)")
        #expect(strict.output.contains("below --min-coverage 100%"))
        let bad = try await run(["verify", "--pages", "pages", "--min-coverage", "lots"])
        #expect(bad.status == 2)
        #expect(bad.errors.contains("--min-coverage takes a percentage 0–100, not lots"))
    }
}
