import PageModel
import PageStore
import Testing

@Suite @MainActor struct ActionDispatcherTests {
    let loader = ScriptedPageLoader()

    func loaded() async -> (PageStore, ActionDispatcher) {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        let store = PageStore(pageID: "cart", loader: loader)
        await store.loadInitial()
        return (store, ActionDispatcher(store: store, makeIdempotencyKey: { "key-1" }))
    }

    @Test func builtInsRecordHostEffects() async {
        let (_, dispatcher) = await loaded()

        let toast = await dispatcher.perform(.toast(message: "Saved"), widgetID: "w", event: "tap")
        await dispatcher.perform(
            .openBottomSheet(pageID: "size", parameters: ["sku": "1"]), widgetID: "w", event: "tap")
        await dispatcher.perform(.dismiss, widgetID: "w", event: "tap")

        #expect(toast == .handled)
        #expect(
            dispatcher.peekEffects() == [
                .toast(message: "Saved"), .openBottomSheet(pageID: "size", parameters: ["sku": "1"]), .dismiss,
            ])
        #expect(dispatcher.takeEffects().count == 3)
        #expect(dispatcher.peekEffects().isEmpty)
    }

    @Test func deeplinksGoToTheHostHandler() async {
        let (_, dispatcher) = await loaded()
        let link = Action.deeplink(url: "shop://orders/7")
        let unhandled = await dispatcher.perform(link, widgetID: "w", event: "tap")
        var opened: [String] = []
        dispatcher.deeplinkHandler = { url in
            opened.append(url)
            return true
        }

        let handled = await dispatcher.perform(link, widgetID: "w", event: "tap")

        #expect(unhandled == .unhandled(link))
        #expect(handled == .handled)
        #expect(opened == ["shop://orders/7"])
        #expect(dispatcher.peekEffects().isEmpty)
    }

    @Test func refreshPageRefreshesTheStore() async throws {
        let (store, dispatcher) = await loaded()
        await loader.respond(with: Fixtures.cart(title: "Fresh"), for: .refresh)
        store.stateStore.set(3, widgetID: "qty", key: "count")

        await dispatcher.perform(.refreshPage, widgetID: "w", event: "tap")

        let page = store.peek(\.page)
        #expect(page?.title == "Fresh")
        #expect(store.stateStore.peekKeys().isEmpty)
    }

    @Test func apiRoundTripAppliesMutationsThenRunsEffects() async throws {
        let (store, dispatcher) = await loaded()
        await loader.respond(with: Fixtures.replaceStepper, for: .action(named: "checkout"))
        let checkout = try #require(store.peek(\.page)?.widget(withID: "checkout"))

        let outcome = await dispatcher.dispatch(WidgetEvent.tap, of: checkout)

        guard case .applied(let response) = outcome else {
            Issue.record("expected .applied, got \(outcome)")
            return
        }
        #expect(response.effects == [.toast(message: "Updated")])
        let label = store.peek(\.page)?.widget(withID: "qty")?.content["label"]
        #expect(label == "Qty (server)")
        #expect(dispatcher.peekEffects() == [.toast(message: "Updated")])
        let requests = await loader.requests
        #expect(
            requests.last?.kind
                == .action(
                    ActionRequest(
                        name: "checkout", pageID: "cart", widgetID: "checkout", event: "tap", payload: ["step": 1],
                        idempotencyKey: "key-1")
                ))
    }

    @Test func failedRoundTripAppliesNothingAndTellsTheHost() async throws {
        let (store, dispatcher) = await loaded()
        await loader.respond(
            with: Fixtures.actionResponse(mutations: #"[{"type": "removeWidget", "id": "ghost"}]"#), for: .action)
        let before = store.peek(\.page)

        let outcome = await dispatcher.perform(.api(name: "x"), widgetID: "qty", event: "tap")

        guard case .failed(let error) = outcome else {
            Issue.record("expected .failed, got \(outcome)")
            return
        }
        #expect(error.code == "mutation_target_not_found")
        #expect(store.peek(\.page) == before)
        #expect(dispatcher.peekEffects() == [.actionFailed(name: "x", message: error.message)])
    }

    @Test func widgetWithoutActionAndUnknownActions() async throws {
        let (store, dispatcher) = await loaded()
        let title = try #require(store.peek(\.page)?.widget(withID: "title"))
        let unknown = Action.unknown(type: "vibrate", body: JSONObject())

        let none = await dispatcher.dispatch(WidgetEvent.tap, of: title)
        let unhandled = await dispatcher.perform(unknown, widgetID: "title", event: "tap")

        #expect(none == .noAction)
        #expect(unhandled == .unhandled(unknown))
    }
}
