import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// Action requests are checked against the page they name (docs/contract.md § 7): the widget must be one a device
/// could hold there — the page's own or one an answer reachable from them brings — and declare the event.
@Suite struct ActionRequestCheckTests {
    /// `shop`: button `reveal` (tap → `shop.reveal`, whose answer replaces it with `buy`, tap → `shop.buy`).
    /// Scenario `shop.alt`: button `alt` (tap → `shop.buy`).
    static let files: [String: String] = [
        "shop.json": #"""
        {"schemaVersion": 1, "kind": "page",
         "page": {"id": "shop", "sections": [{"id": "s", "widgets": [
            {"id": "reveal", "type": "button", "content": {"title": "Reveal"},
             "actions": {"tap": {"type": "api", "name": "shop.reveal"}}}]}]},
         "server": {"actions": {
            "shop.reveal": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [
                {"type": "replaceWidget", "id": "reveal", "widget":
                    {"id": "buy", "type": "button", "content": {"title": "Buy"},
                     "actions": {"tap": {"type": "api", "name": "shop.buy"}}}}], "effects": []},
            "shop.buy": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [],
                "effects": [{"type": "toast", "message": "Bought"}]}}}}
        """#,
        "shop.alt.json": #"""
        {"schemaVersion": 1, "kind": "page",
         "page": {"id": "shop", "sections": [{"id": "s", "widgets": [
            {"id": "alt", "type": "button", "content": {"title": "Buy"},
             "actions": {"tap": {"type": "api", "name": "shop.buy"}}}]}]}}
        """#,
    ]

    static func body(_ widgetID: String, event: String = "tap", page: String = "shop") -> String {
        #"{"pageID": "\#(page)", "widgetID": "\#(widgetID)", "event": "\#(event)"}"#
    }

    /// The status and problem code of each request, in order.
    static func answers(_ server: TestServer, _ requests: [(String, String)], session: String? = nil) async throws
        -> [String]
    {
        let http = HTTPTestClient(port: server.port)
        var answers: [String] = []
        for (name, body) in requests {
            let response = try await http.post(
                "/v1/actions/\(name)", json: body, headers: session.map { [("X-Flow-Session", $0)] } ?? [])
            let code =
                response.status == 200 ? "" : (try PageDecoder().parse(response.body))["code"]?.stringValue ?? "?"
            answers.append("\(response.status) \(code)".trimmingCharacters(in: .whitespaces))
        }
        return answers
    }

    @Test func productionAcceptsReachableWidgetsAndRefusesTheRest() async throws {
        let pages = try temporaryPages(Self.files)
        try await withTestServer(pages: pages) { server in
            let answers = try await Self.answers(
                server,
                [
                    ("shop.reveal", Self.body("reveal")),
                    // `buy` only exists after `shop.reveal` answered; production keeps no state, so it is accepted
                    // because the answer of an action the page can fire brings it.
                    ("shop.buy", Self.body("buy")),
                    ("shop.buy", Self.body("nope")),
                    ("shop.reveal", Self.body("reveal", event: "change")),
                    ("shop.buy", Self.body("alt")),  // scenarios are mock-only
                    ("shop.buy", Self.body("buy", page: "elsewhere")),
                ])
            #expect(
                answers == [
                    "200", "200", "400 unknown_widget", "400 undeclared_event", "400 unknown_widget",
                    "404 page_not_found",
                ])
        }
    }

    @Test func mockModeAlsoAcceptsScenarioWidgetsAndKeepsTheSessionCopy() async throws {
        let pages = try temporaryPages(Self.files)
        try await withTestServer(pages: pages, configuration: mockConfiguration()) { server in
            let answers = try await Self.answers(
                server,
                [
                    ("shop.buy", Self.body("alt")),
                    ("shop.buy", Self.body("nope")),
                    ("shop.reveal", Self.body("reveal")),
                    ("shop.buy", Self.body("buy")),
                ],
                session: "s-1")
            #expect(answers == ["200", "400 unknown_widget", "200", "200"])
            // The refused request changed nothing; the accepted one changed the session's copy.
            let page = try await HTTPTestClient(port: server.port).get(
                "/v1/pages/shop", headers: [("X-Flow-Session", "s-1")])
            let document = try PageDecoder().decodePage(page.body).value
            #expect(document.sections.first?.widgets.map(\.id) == ["buy"])
        }
    }
}

extension ActionRequestCheckTests {
    @Test func mockModeRefusesUndeclaredEventsAndUnknownPages() async throws {
        let pages = try temporaryPages(Self.files)
        try await withTestServer(pages: pages, configuration: mockConfiguration()) { server in
            let answers = try await Self.answers(
                server,
                [
                    ("shop.reveal", Self.body("reveal", event: "change")),
                    ("shop.buy", Self.body("buy", page: "elsewhere")),
                    ("shop.buy", Self.body("alt", event: "change")),
                ],
                session: "s-1")
            #expect(answers == ["400 undeclared_event", "404 page_not_found", "400 undeclared_event"])
        }
    }

    /// A widget only a Swift handler's answer brings is in no page file: production cannot know it, but in mock
    /// mode the session's copy holds it after the answer, so a follow-up request from that session is accepted —
    /// and the same request from another session is not.
    @Test func mockModeAcceptsWidgetsOfTheSessionCopyOnly() async throws {
        let pages = try temporaryPages(Self.files)
        try await withTestServer(pages: pages, configuration: mockConfiguration()) { server in
            server.service.application.actions.register("shop.reveal") { _ in
                ActionResponse(mutations: [
                    .replaceWidget(
                        id: "reveal",
                        widget: .button(id: "fresh", title: "Fresh", onTap: .api(name: "shop.buy")))
                ])
            }
            let first = try await Self.answers(
                server, [("shop.reveal", Self.body("reveal")), ("shop.buy", Self.body("fresh"))], session: "s-1")
            #expect(first == ["200", "200"])
            let other = try await Self.answers(server, [("shop.buy", Self.body("fresh"))], session: "s-2")
            #expect(other == ["400 unknown_widget"])
        }
        try await withTestServer(pages: try temporaryPages(Self.files)) { server in
            server.service.application.actions.register("shop.reveal") { _ in
                ActionResponse(mutations: [
                    .replaceWidget(
                        id: "reveal",
                        widget: .button(id: "fresh", title: "Fresh", onTap: .api(name: "shop.buy")))
                ])
            }
            let answers = try await Self.answers(
                server, [("shop.reveal", Self.body("reveal")), ("shop.buy", Self.body("fresh"))])
            #expect(answers == ["200", "400 unknown_widget"])
        }
    }
}
