import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// What the action route answers when an answer cannot be sent (docs/actions.md § When the answer cannot be
/// sent): the client's doing is a 422 naming the request member; the server's (a handler, a page file) a 500
/// that names the lint codes and the request ID, with the answer's paths only in the log — and, in mock mode, in
/// `diagnostics`.
@Suite struct ActionProblemTests {
    /// `calc`: a stepper `qty` (change → `calc.set`, templated from the request) and a button `open` (tap →
    /// `calc.broken`, answered by a handler with an accordion without children).
    static let pages: [String: String] = [
        "calc.json": #"""
        {"schemaVersion": 1, "kind": "page",
         "page": {"id": "calc", "sections": [{"id": "s", "widgets": [
            {"id": "qty", "type": "stepper", "content": {"value": 1},
             "actions": {"change": {"type": "api", "name": "calc.set"}}},
            {"id": "open", "type": "button", "content": {"title": "Open"},
             "actions": {"tap": {"type": "api", "name": "calc.broken"}}}]}]},
         "server": {"actions": {
            "calc.set": {"schemaVersion": 1, "kind": "actionResponse",
                "mutations": [{"type": "replaceWidget", "id": "qty", "widget":
                    {"id": "qty", "type": "stepper", "content": {"value": "{{request.value}}"}}}],
                "effects": [{"type": "deeplink", "url": "{{request.header.X-Next}}"}]},
            "calc.broken": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [], "effects": []}}}}
        """#
    ]

    static func serve(mock: Bool, _ body: (HTTPTestClient, MemoryLogSink) async throws -> Void) async throws {
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        configuration.mock.enabled = mock
        let log = MemoryLogSink()
        try await withTestServer(pages: try temporaryPages(Self.pages), configuration: configuration, log: log) {
            server in
            server.service.application.actions.register("calc.broken") { _ in
                ActionResponse(mutations: [
                    .replaceWidget(id: "open", widget: .accordion(id: "open", title: "x", children: []))
                ])
            }
            try await body(HTTPTestClient(port: server.port), log)
        }
    }

    static func set(_ http: HTTPTestClient, value: String, next: String = "app://next") async throws
        -> HTTPTestClient.Response
    {
        try await http.post(
            "/v1/actions/calc.set",
            json: #"{"pageID": "calc", "widgetID": "qty", "event": "change", "value": \#(value)}"#,
            headers: [("X-Next", next)])
    }

    @Test func aValueTheAnswerCannotHoldIsA422NamingIt() async throws {
        try await Self.serve(mock: false) { http, _ in
            let good = try await Self.set(http, value: "4")
            #expect(good.status == 200, "\(good.text)")
            let text = try await Self.set(http, value: #""abc""#)
            #expect(text.status == 422)
            #expect(text.header("Content-Type") == "application/problem+json")
            let problem = try JSONParser().parse(text.body)
            #expect(problem["code"] == "invalid_action_value")
            #expect(problem["path"] == "/value")
            #expect(
                problem["detail"]
                    == "The answer of calc.set cannot be built from /value (string) as sent: invalid_content.")
            #expect(problem["diagnostics"] == nil)
            // A header the template puts in a deeplink effect: named in words, no body path.
            let script = try await Self.set(http, value: "4", next: "javascript:alert(1)")
            #expect(script.status == 422, "\(script.text)")
            let scriptProblem = try JSONParser().parse(script.body)
            #expect(scriptProblem["path"] == nil)
            #expect(
                scriptProblem["detail"]?.stringValue?.contains("the header X-Next (text) as sent: unsafe_url") == true)
        }
    }

    /// A value that fits the body limit but grows past the content budget once the bundled cart's `| text` fallback
    /// writes it into the stepper: the error is reported at the widget's content, above the templated string.
    @Test func aValueThatOverflowsTheContentBudgetIsA422() async throws {
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        try await withTestServer(configuration: configuration) { server in
            let value = "[" + Array(repeating: "\"\"", count: 15_000).joined(separator: ",") + "]"
            let answer = try await HTTPTestClient(port: server.port).post(
                "/v1/actions/cart.setQuantity",
                json: #"{"pageID": "cart", "widgetID": "qty.p-1042", "event": "change", "value": \#(value), "#
                    + #""payload": {"productID": "p-1042"}}"#)
            #expect(answer.status == 422, "\(answer.text.prefix(300))")
            let problem = try JSONParser().parse(answer.body)
            #expect(problem["code"] == "invalid_action_value")
            #expect(problem["path"] == "/value")
        }
    }

    @Test func anInvalidHandlerAnswerIsA500WithoutTheAnswersPathsInProduction() async throws {
        try await Self.serve(mock: false) { http, log in
            let broken = try await http.post(
                "/v1/actions/calc.broken", json: #"{"pageID": "calc", "widgetID": "open", "event": "tap"}"#)
            #expect(broken.status == 500)
            let problem = try JSONParser().parse(broken.body)
            #expect(problem["code"] == "invalid_action_response")
            #expect(problem["diagnostics"] == nil)
            #expect(!broken.text.contains("/mutations"), "\(broken.text)")
            let requestID = try #require(broken.header("X-Request-ID"))
            #expect(
                problem["detail"]?.stringValue?.contains("(missing_children). The request ID is \(requestID).") == true)
            // The paths are in the log line of that request.
            let line = log.lines.first { $0.contains("invalid action response") && $0.contains(requestID) }
            #expect(line?.contains("/mutations/0/widget/children") == true, "\(log.lines)")
        }
    }

    @Test func mockModeAddsTheDiagnosticsToTheServersOwnFailures() async throws {
        try await Self.serve(mock: true) { http, _ in
            let broken = try await http.post(
                "/v1/actions/calc.broken", json: #"{"pageID": "calc", "widgetID": "open", "event": "tap"}"#)
            #expect(broken.status == 500)
            #expect(try JSONParser().parse(broken.body)["diagnostics"]?[0]?["code"] == "missing_children")
            // The client's doing never shows the answer's internals, in mock mode either.
            let text = try await Self.set(http, value: "[1]")
            #expect(text.status == 422)
            #expect(!text.text.contains("/mutations"), "\(text.text)")
        }
    }
}
