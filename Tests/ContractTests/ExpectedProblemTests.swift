import BFFServer
import BFFTesting
import ContractVerifier
import Foundation
import HTTPCore
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

    /// A server (RawServer) whose `orders.cancel` answers with `status`, `contentType` and a body saying 409.
    func verifyRaw(status: Int, contentType: String) async throws -> VerificationReport {
        let problem: JSONValue = [
            "type": "https://example.com/problems/order_already_shipped", "title": "Already shipped", "status": 409,
            "detail": "o-1001 left the warehouse.", "code": "order_already_shipped",
        ]
        let page: JSONValue = [
            "schemaVersion": 1, "kind": "page",
            "page": [
                "id": "orders",
                "sections": [
                    [
                        "id": "list",
                        "widgets": [
                            [
                                "id": "cancel.o-1001", "type": "button", "content": ["title": "Cancel"],
                                "actions": ["tap": ["type": "api", "name": "orders.cancel"]],
                            ]
                        ],
                    ]
                ],
            ],
        ]
        let table: JSONValue = [
            "entry": ["orders"],
            "routes": [
                ["path": "/v1/pages/orders", "responses": [["body": page]]],
                [
                    "method": "POST", "path": "/v1/actions/orders.cancel",
                    "responses": [
                        [
                            "status": .number(Double(status)), "headers": ["Content-Type": .string(contentType)],
                            "body": problem,
                        ]
                    ],
                ],
            ],
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("expected-\(UUID().uuidString).json")
        try Data(JSONWriter().write(table)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let raw = try RawServer(routesFile: file.path)
        try raw.server.start()
        defer { raw.server.shutdown() }
        var configuration = VerifierConfiguration(
            baseURL: raw.baseURL, entryPages: [PageTarget(pageID: "orders")], maximumChunks: 50, timeout: 30)
        configuration.expectedProblems = [
            "orders.cancel": [ExpectedProblem(code: "order_already_shipped", status: 409)]
        ]
        return try await ContractVerifier(configuration: configuration).run()
    }

    @Test func aMalformedExpectedProblemFails() async throws {
        let wellFormed = try await verifyRaw(status: 409, contentType: "application/problem+json")
        #expect(wellFormed.passed, "\(wellFormed.summary)")
        #expect(wellFormed.pages.first?.expectedProblems == 1)
        // The body says 409, the HTTP status is 500 and the answer is HTML: not a problem document.
        let malformed = try await verifyRaw(status: 500, contentType: "text/html")
        #expect(Set(malformed.codes) == ["invalid_problem_response", "wrong_content_type"], "\(malformed.summary)")
        #expect(malformed.violations.contains { $0.expected == "500" && $0.actual == "409" })
        #expect(malformed.pages.first?.expectedProblems == 0)
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
