import ContractVerifier
import Foundation
import Testing

/// `verify` over every directory of the broken-server corpus reports exactly the codes the directory expects.
@Suite struct BrokenServerTests {
    @Test func theCorpusCoversTheIssuesRules() {
        let codes = Set(BrokenServer.all.flatMap(\.expectedCodes))
        #expect(BrokenServer.all.count >= 15)
        for code in [
            "duplicate_id", "mutation_failed", "pagination_not_terminated", "action_failed", "page_failed",
        ] {
            #expect(codes.contains(code), "a broken server for \(code)")
        }
        #expect(codes.isSubset(of: Set(ViolationCode.all)), "only documented codes")
    }

    @Test(arguments: BrokenServer.all)
    func reportsExactlyTheExpectedCodes(_ broken: BrokenServer) async throws {
        #expect((broken.profile == nil) == (broken.capabilityProfile == nil), "profile \(broken.profile ?? "") exists")
        let report = try await broken.run { url, entry in
            try await crawl(url, entry: entry, as: broken.capabilityProfile)
        }
        #expect(
            Set(report.codes) == broken.expectedCodes,
            "\(broken.name) (\(broken.rule)):\n\(report.summary)")
        #expect(!report.passed)
        for violation in report.violations {
            #expect(!violation.request.isEmpty, "every violation names its request: \(violation)")
            #expect(!violation.page.isEmpty)
        }
    }

    @Test(arguments: BrokenServer.legal)
    func legalVariationsPass(_ legal: BrokenServer) async throws {
        let report = try await legal.run { url, entry in try await crawl(url, entry: entry, as: legal.capabilityProfile)
        }
        #expect(report.passed, "\(legal.name) (\(legal.rule)):\n\(report.summary)")
    }

    @Test func theLegalCorpusExists() {
        #expect(BrokenServer.legal.count >= 3)
    }
}
