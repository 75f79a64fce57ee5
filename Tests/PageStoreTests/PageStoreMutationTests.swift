import PageModel
import PageStore
import Testing

/// Mutations on the document side, through the store: `apply`, `performAction` and `WidgetContext.dispatch`.
@Suite @MainActor struct PageStoreMutationTests {
    let loader = ScriptedPageLoader()

    func loaded() async -> (PageStore, StateRecorder) {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        let store = PageStore(pageID: "cart", loader: loader)
        let recorder = StateRecorder(store)
        await store.loadInitial()
        return (store, recorder)
    }

    static func row(_ id: String) -> Widget {
        Widget(id: id, type: "list_row", content: ["title": .string(id)])
    }

    @Test func appendAndPrependSectionsThroughApplyKeepWidgetStateAndPagination() async throws {
        let (store, recorder) = await loaded()
        store.stateStore.set(3, widgetID: "qty", key: "count")

        try store.apply(.appendSections([Section(id: "tail", widgets: [Self.row("last")])]))
        try store.apply(.prependSections([Section(id: "head", widgets: [Self.row("first")])]))

        let cart = try Fixtures.decoded(Fixtures.cart())
        let appended = try cart.applying(.appendSections([Section(id: "tail", widgets: [Self.row("last")])]))
        let prepended = try appended.applying(.prependSections([Section(id: "head", widgets: [Self.row("first")])]))
        #expect(prepended.sections.map(\.id) == ["head", "items", "tail"])
        #expect(prepended.pagination == cart.pagination)
        #expect(recorder.states == [.loading, .loaded(cart), .loaded(appended), .loaded(prepended)])
        let count = store.stateStore.peek(widgetID: "qty", key: "count", as: Int.self)
        #expect(count == 3)
        let diagnostics = store.peek(\.diagnostics)
        #expect(diagnostics.isEmpty)
    }

    @Test func appendedSectionsWithoutIDsDoNotCollideWithThePagesGeneratedIDs() async throws {
        await loader.respond(
            with: Fixtures.page(#"{"id": "feed", "sections": [{"widgets": [{"type": "divider"}]}]}"#), for: .initial)
        await loader.respond(
            with: Fixtures.actionResponse(
                mutations: #"[{"type": "appendSections", "sections": [{"widgets": [{"type": "divider"}]}]}]"#),
            for: .action)
        let store = PageStore(pageID: "feed", loader: loader)
        await store.loadInitial()

        try await store.performAction(
            ActionRequest(name: "more", pageID: "feed", widgetID: "divider@sections.0.widgets.0", event: "tap"))

        let page = try #require(store.peek(\.page))
        #expect(page.sections.map(\.id) == ["section@sections.0", "section@mutations.0.sections.0"])
        #expect(page.sections[1].widgets.map(\.id) == ["divider@mutations.0.sections.0.widgets.0"])
        let diagnostics = store.peek(\.diagnostics)
        #expect(diagnostics.isEmpty)
    }

    /// "The package does not guess": replacing a widget with one of the same id keeps its state; only a new
    /// id (or the host's reset) starts it over.
    @Test func widgetStateSurvivesAReplaceWidgetOfThatSameWidget() async throws {
        let (store, _) = await loaded()
        let quantity = store.stateStore.binding(widgetID: "qty", key: "count", default: 1)
        quantity.wrappedValue = 3

        let sameID = Widget(id: "qty", type: "stepper", content: ["value": 7, "label": "Quantity"])
        try store.apply(.replaceWidget(id: "qty", widget: sameID))

        let replaced = try #require(store.peek(\.page)?.widget(withID: "qty"))
        #expect(replaced.content["value"] == 7)  // the new payload's initial is there for a widget that reads it
        let countAfterReplace = store.stateStore.peek(widgetID: "qty", key: "count", as: Int.self)
        #expect(countAfterReplace == 3)

        let newID = Widget(id: "qty-2", type: "stepper", content: ["value": 7])
        try store.apply(.replaceWidget(id: "qty", widget: newID))

        let newCount = store.stateStore.binding(widgetID: "qty-2", key: "count", default: 7)
        #expect(newCount.wrappedValue == 7)
        let orphaned = store.stateStore.peek(widgetID: "qty", key: "count", as: Int.self)
        #expect(orphaned == 3)  // kept, keyed by the old id; the host resets if it wants it gone
    }

    /// Taps leave the view through `WidgetContext.dispatch`: a renderer gets the context, the tap goes through
    /// the page's dispatcher, the loader and the mutations.
    @Test func tapsLeaveTheViewThroughWidgetContextDispatch() async throws {
        let (store, recorder) = await loaded()
        await loader.respond(with: Fixtures.replaceStepper, for: .action(named: "checkout"))
        let dispatcher = ActionDispatcher(store: store, makeIdempotencyKey: { "key-1" })
        let drawn = DrawnContexts()
        var registry = WidgetRegistry()
        registry.register(
            "button",
            renderer: WidgetRenderer { widget, context in
                drawn.contexts[widget.id] = context
                return WidgetRenderer.outline.line(widget, context)
            })
        let page = try #require(store.peek(\.page))
        _ = registry.outline(of: page, state: store.stateStore, dispatcher: dispatcher)
        let checkout = try #require(page.widget(withID: "checkout"))
        let context = try #require(drawn.contexts["checkout"])

        let outcome = await context.dispatch(WidgetEvent.tap, of: checkout)

        guard case .applied(let response)? = outcome else {
            Issue.record("expected .applied, got \(String(describing: outcome))")
            return
        }
        #expect(response.effects == [.toast(message: "Updated")])
        #expect(dispatcher.peekEffects() == [.toast(message: "Updated")])
        let requests = await loader.requests
        #expect(
            requests.last?.kind
                == .action(
                    ActionRequest(
                        name: "checkout", pageID: "cart", widgetID: "checkout", event: "tap", payload: ["step": 1],
                        idempotencyKey: "key-1")))
        let cart = try Fixtures.decoded(Fixtures.cart())
        let replacement = Widget(id: "qty", type: "stepper", content: ["value": 1, "label": "Qty (server)"])
        #expect(
            recorder.states == [
                .loading, .loaded(cart), .loaded(try cart.applying(.replaceWidget(id: "qty", widget: replacement))),
            ])

        let withoutDispatcher = WidgetContext(widgetID: "checkout", state: store.stateStore)
        let nothing = await withoutDispatcher.dispatch(WidgetEvent.tap, of: checkout)
        #expect(nothing == nil)
    }
}

/// The contexts a renderer was handed, by widget id.
@MainActor final class DrawnContexts {
    var contexts: [String: WidgetContext] = [:]
}
