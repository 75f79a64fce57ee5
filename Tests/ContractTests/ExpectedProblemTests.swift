import BFFServer
import BFFTesting
import ContractVerifier
import Foundation
import HTTPTesting
import PageModel
import Testing

/// A problem a page file declares for an action (a business error such as `409 order_already_shipped`) is a
/// legal outcome: `verify` checks its shape and does not report it as `action_failed` (issue 32).
@Suite struct ExpectedProblemTests {
    static let orders = #"""
        {"schemaVersion": 1, "kind": "page", "page": {"id": "orders", "title": "Orders", "sections": [{"id": "list", "widgets": [
          {"id": "cancel.o-1001", "type": "button", "content": {"title": "Cancel"},
           "actions": {"tap": {"type": "api", "name": "orders.cancel", "payload": {"orderID": "o-1001"}}}}]}]},
         "server": {"actions": {"orders.cancel": {"responses": [
           {"when": {"request.payload.orderID": "o-1001"},
            "problem": {"status": 409, "code": "order_already_shipped", "title": "Already shipped"}},
           {"response": {"schemaVersion": 1, "kind": "actionResponse"}}]}}}}
        """#

    func verify(expecting expected: [String: [ExpectedProblem]]) async throws -> VerificationReport {
        try await withPagesServer(try temporaryPages(["orders.json": Self.orders]), unchecked: false) { url, pages in
            var configuration = VerifierConfiguration(
                baseURL: url, entryPages: pages.map { PageTarget(pageID: $0) }, maximumChunks: 50, timeout: 30)
            configuration.expectedProblems = expected
            return try await ContractVerifier(configuration: configuration).run()
        }
    }

    @Test func anExpectedProblemIsALegalOutcome() async throws {
        let unexpected = try await verify(expecting: [:])
        #expect(unexpected.codes == ["action_failed"], "\(unexpected.summary)")
        let expected = try await verify(expecting: [
            "orders.cancel": [ExpectedProblem(code: "order_already_shipped", status: 409)]
        ])
        #expect(expected.passed, "\(expected.summary)")
        #expect(expected.pages.first?.expectedProblems == 1)
        #expect(expected.summary.contains("1 expected problems"))
    }

    @Test func anExpectedProblemWithAnotherStatusIsAViolation() async throws {
        let report = try await verify(expecting: [
            "orders.cancel": [ExpectedProblem(code: "order_already_shipped", status: 410)]
        ])
        #expect(report.codes == ["invalid_problem_response"], "\(report.summary)")
        #expect(report.violations.first?.expected == "410")
        #expect(report.violations.first?.actual == "409")
    }

    @Test func theCatalogListsItsDeclaredProblems() throws {
        let catalog = PageCatalog.load(directory: try temporaryPages(["orders.json": Self.orders]))
        #expect(catalog.actions["orders.cancel"]?.declaredProblems.map(\.code) == ["order_already_shipped"])
    }

    @Test(
        arguments: [
            ("orders.cancel=order_already_shipped", "orders.cancel", "order_already_shipped", nil),
            ("orders.cancel=order_already_shipped:409", "orders.cancel", "order_already_shipped", 409),
        ] as [(String, String, String, Int?)])
    func theFlagParses(_ text: String, _ action: String, _ code: String, _ status: Int?) throws {
        let parsed = try #require(ExpectedProblem.parse(text))
        #expect(parsed.action == action)
        #expect(parsed.problem == ExpectedProblem(code: code, status: status))
    }

    @Test(arguments: ["orders.cancel", "=x", "a=", "a=x:200", "a=x:abc"])
    func malformedFlagsAreRefused(_ text: String) {
        #expect(ExpectedProblem.parse(text) == nil)
    }
}

extension VerifyCommandTests {
    /// `verify --pages` expects the problems the page files declare; `--url` needs `--expect-problem`.
    @Test func verifyPagesExpectsDeclaredProblemsAndTheFlagAddsThem() async throws {
        let directory = try temporaryPages(["orders.json": ExpectedProblemTests.orders])
        let pages = try await run(["verify", "--pages", directory])
        #expect(pages.status == 0, "\(pages.output)\n\(pages.errors)")
        #expect(pages.output.contains("1 expected problems"), "\(pages.output)")
        let bad = try await run(["verify", "--pages", directory, "--expect-problem", "orders.cancel"])
        #expect(bad.status == 2)
        #expect(bad.errors.contains("--expect-problem takes NAME=CODE"), "\(bad.errors)")
    }
}
