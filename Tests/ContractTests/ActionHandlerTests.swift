import BFFServer
import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import PageStore
import Synchronization
import Testing

/// Swift action handlers: computed answers through HTTP and through the device client, checked before sending,
/// and answered once per `Idempotency-Key`.
@Suite struct ActionHandlerTests {
    /// `calc`: a stepper `qty` (change → `calc.set`, whose declared default answer is a toast "default").
    static let pages: [String: String] = [
        "calc.json": #"""
        {"schemaVersion": 1, "kind": "page",
         "page": {"id": "calc", "sections": [{"id": "s", "widgets": [
            {"id": "qty", "type": "stepper", "content": {"value": 1},
             "actions": {"change": {"type": "api", "name": "calc.set"}}},
            {"id": "open", "type": "button", "content": {"title": "Open"},
             "actions": {"tap": {"type": "api", "name": "calc.broken"}}}]}]},
         "server": {"actions": {
            "calc.set": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [],
                "effects": [{"type": "toast", "message": "default"}]},
            "calc.broken": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [], "effects": []}}}}
        """#
    ]

    /// Registers `calc.set` (the stepper at the sent value, doubled, and a toast) counting its calls, and
    /// `calc.*` answering an accordion without children (invalid).
    static func register(on application: BFFApplication, calls: Calls? = nil) {
        application.actions.register("calc.set") { context in
            calls?.count.add(1, ordering: .relaxed)
            let value = context.request.value?.intValue ?? 0
            return ActionResponse(
                mutations: [
                    .replaceWidget(
                        id: context.request.widgetID,
                        widget: .stepper(
                            id: context.request.widgetID, value: value * 2,
                            onChange: .api(name: "calc.set")))
                ],
                effects: [.toast(message: "Set to \(value * 2) for \(context.request.pageID)")])
        }
        application.actions.register("calc.*") { _ in
            ActionResponse(mutations: [
                .replaceWidget(id: "open", widget: .accordion(id: "open", title: "x", children: []))
            ])
        }
    }

    static func body(value: Int) -> String {
        #"{"pageID": "calc", "widgetID": "qty", "event": "change", "value": \#(value)}"#
    }

    @Test func aHandlerComputesTheAnswerThroughHTTP() async throws {
        try await withTestServer(pages: try temporaryPages(Self.pages)) { server in
            Self.register(on: server.service.application)
            let http = HTTPTestClient(port: server.port)
            let answer = try await http.post("/v1/actions/calc.set", json: Self.body(value: 7))
            #expect(answer.status == 200, "\(answer.text)")
            let response = try PageDecoder().decodeActionResponse(answer.body).value
            #expect(response.effects == [.toast(message: "Set to 14 for calc")])
            guard case .replaceWidget(let id, let widget)? = response.mutations.first else {
                Issue.record("expected replaceWidget, got \(response.mutations)")
                return
            }
            #expect(id == "qty")
            #expect(widget.content["value"] == 14)
            // An invalid computed answer is never sent: a 500 naming the problem, with its diagnostics.
            let broken = try await http.post(
                "/v1/actions/calc.broken", json: #"{"pageID": "calc", "widgetID": "open", "event": "tap"}"#)
            #expect(broken.status == 500)
            #expect(broken.text.contains(#""code":"invalid_action_response""#))
            #expect(broken.text.contains("missing_children"))
            let metrics = try await http.get("/metrics").text
            #expect(metrics.contains(#"flow_bff_action_calls_total{action="calc.set",outcome="ok"} 1"#))
            #expect(
                metrics.contains(
                    #"flow_bff_action_calls_total{action="calc.broken",outcome="invalid_action_response"} 1"#))
        }
    }

    @Test func aHandlerComputesTheAnswerThroughPageStore() async throws {
        try await withTestServer(pages: try temporaryPages(Self.pages)) { server in
            Self.register(on: server.service.application)
            try await Self.setQuantityLikeADevice(baseURL: server.baseURL)
        }
    }

    /// Loads `calc` with PageStore over its HTTP loader and changes the stepper to 4 through the dispatcher.
    @MainActor
    static func setQuantityLikeADevice(baseURL: String) async throws {
        let loader = HTTPPageLoader(baseURL: URL(string: baseURL)!, timeout: 10)
        let store = PageStore(pageID: "calc", loader: loader)
        let dispatcher = ActionDispatcher(store: store)
        await store.loadInitial()
        let stepper = try #require(store.peek(\.page)?.widget(withID: "qty"))
        let outcome = await dispatcher.dispatch(WidgetEvent.change, of: stepper, value: 4)
        guard case .applied = outcome else {
            Issue.record("expected .applied, got \(outcome)")
            return
        }
        let value = store.peek(\.page)?.widget(withID: "qty")?.content["value"]
        #expect(value == 8)
        #expect(dispatcher.peekEffects() == [.toast(message: "Set to 8 for calc")])
    }

    @Test func aRetryWithTheSameKeyIsAnsweredOnce() async throws {
        let calls = Calls()
        try await withTestServer(pages: try temporaryPages(Self.pages)) { server in
            Self.register(on: server.service.application, calls: calls)
            let http = HTTPTestClient(port: server.port)
            let key = [("Idempotency-Key", "k-1")]
            let first = try await http.post("/v1/actions/calc.set", json: Self.body(value: 3), headers: key)
            let retry = try await http.post("/v1/actions/calc.set", json: Self.body(value: 3), headers: key)
            #expect(first.status == 200)
            #expect(retry.status == 200)
            #expect(retry.body == first.body)
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(first.header("Idempotent-Replayed") == nil)
            #expect(calls.count.load(ordering: .relaxed) == 1, "the retry did not run the handler")
            let reused = try await http.post("/v1/actions/calc.set", json: Self.body(value: 5), headers: key)
            #expect(reused.status == 422)
            #expect(reused.text.contains(#""code":"idempotency_key_reused""#))
            // Keys are scoped to the session: another session's k-1 is a new request.
            let other = try await http.post(
                "/v1/actions/calc.set", json: Self.body(value: 5), headers: key + [("X-Flow-Session", "s-2")])
            #expect(other.status == 200)
            #expect(calls.count.load(ordering: .relaxed) == 2)
            let invalid = try await http.post(
                "/v1/actions/calc.set", json: Self.body(value: 5), headers: [("Idempotency-Key", "")])
            #expect(invalid.status == 400)
            #expect(invalid.text.contains(#""code":"invalid_idempotency_key""#))
        }
    }
}

/// Counts handler calls.
final class Calls: Sendable {
    let count = Atomic<Int>(0)
}
