import PageModel
import PageStore
import Testing

/// One test per lifecycle sentence of seed 001, each asserting the full sequence of published states.
@Suite @MainActor struct PageStoreLifecycleTests {
    let loader = ScriptedPageLoader()

    func makeStore() -> (PageStore, StateRecorder) {
        let store = PageStore(pageID: "cart", loader: loader)
        return (store, StateRecorder(store))
    }

    @Test func stepperAtThreeSurvivesLoadNextPage() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        await loader.respond(with: Fixtures.nextPage(), for: .nextPage)
        let (store, recorder) = makeStore()
        await store.loadInitial()
        let quantity = store.stateStore.binding(widgetID: "qty", key: "count", default: 1)
        quantity.wrappedValue = 3

        await store.loadNextPage()

        let count = store.stateStore.peek(widgetID: "qty", key: "count", as: Int.self)
        #expect(count == 3)
        let first = try Fixtures.decoded(Fixtures.cart())
        let merged = try Fixtures.appending(Fixtures.nextPage(), to: first)
        #expect(recorder.states == [.loading, .loaded(first), .loaded(merged)])
        let requests = await loader.requests
        #expect(requests.map(\.kind) == [.initial, .nextPage(postback: "cursor-1")])
    }

    @Test func refreshReturnsStepperToPayloadsInitial() async throws {
        await loader.respond(with: Fixtures.cart(stepper: 1), for: .initial)
        await loader.respond(with: Fixtures.cart(stepper: 5), for: .refresh)
        let (store, recorder) = makeStore()
        await store.loadInitial()
        let quantity = store.stateStore.binding(widgetID: "qty", key: "count", default: 1)
        quantity.wrappedValue = 3

        await store.refresh()

        let page = try #require(store.peek(\.page))
        let initialCount = try #require(page.widget(withID: "qty")?.content["value"]?.intValue)
        let refreshed = store.stateStore.binding(widgetID: "qty", key: "count", default: initialCount)
        #expect(refreshed.wrappedValue == 5)
        #expect(store.stateStore.peekKeys().isEmpty)
        #expect(
            recorder.states == [
                .loading, .loaded(try Fixtures.decoded(Fixtures.cart(stepper: 1))),
                .loaded(try Fixtures.decoded(Fixtures.cart(stepper: 5))),
            ])
    }

    @Test func failedInitialLoadIsFailedThenRetryRecovers() async throws {
        await loader.fail(with: Fixtures.serverError, for: .initial)
        await loader.respond(with: Fixtures.cart(), for: .initial)
        let (store, recorder) = makeStore()

        await store.loadInitial()
        let failedStatus = store.peek(\.status.error)
        #expect(failedStatus == Fixtures.serverError)
        await store.retry()

        #expect(
            recorder.states == [
                .loading, .failed(message: "HTTP 500 Internal Server Error"), .loading,
                .loaded(try Fixtures.decoded(Fixtures.cart())),
            ])
        let error = store.peek(\.status.error)
        #expect(error == nil)
    }

    @Test func failedPaginationKeepsPageAndHasMoreAndSentinelCanFireAgain() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        await loader.fail(with: Fixtures.serverError, for: .nextPage)
        await loader.respond(with: Fixtures.nextPage(), for: .nextPage)
        let (store, recorder) = makeStore()
        await store.loadInitial()

        await store.loadNextPage()

        let first = try Fixtures.decoded(Fixtures.cart())
        let pageAfterFailure = try #require(store.peek(\.page))
        #expect(pageAfterFailure == first)
        #expect(pageAfterFailure.hasMore)
        let isLoadingMore = store.peek(\.isLoadingMore)
        #expect(!isLoadingMore)
        let paginationError = store.peek(\.paginationStatus.error)
        #expect(paginationError == Fixtures.serverError)
        #expect(recorder.states == [.loading, .loaded(first)])

        await store.loadNextPage()

        let merged = try Fixtures.appending(Fixtures.nextPage(), to: first)
        #expect(recorder.states == [.loading, .loaded(first), .loaded(merged)])
        let requests = await loader.requests
        #expect(requests.count == 3)
    }

    @Test func secondLoadNextPageWhileOneIsInFlightDoesNothing() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        let next = await loader.suspend(for: .nextPage)
        let (store, recorder) = makeStore()
        await store.loadInitial()

        let pagination = Task { await store.loadNextPage() }
        try await next.arrived()
        let isLoadingMore = store.peek(\.isLoadingMore)
        #expect(isLoadingMore)
        await store.loadNextPage()  // returns at once: already loading more
        let requestsWhileInFlight = await loader.requests
        #expect(requestsWhileInFlight.count == 2)

        next.respond(with: Fixtures.nextPage())
        try await finish(pagination)

        let first = try Fixtures.decoded(Fixtures.cart())
        let merged = try Fixtures.appending(Fixtures.nextPage(), to: first)
        #expect(recorder.states == [.loading, .loaded(first), .loaded(merged)])
        let requests = await loader.requests
        #expect(requests.count == 2)
    }

    @Test func supersededRefreshNeverPublishes() async throws {
        await loader.respond(with: Fixtures.cart(title: "v1"), for: .initial)
        let older = await loader.suspend(for: .refresh)
        let newer = await loader.suspend(for: .refresh)
        let (store, recorder) = makeStore()
        await store.loadInitial()

        let olderRefresh = Task { await store.refresh() }
        try await older.arrived()
        let newerRefresh = Task { await store.refresh() }
        try await newer.arrived()
        newer.respond(with: Fixtures.cart(title: "v3"))
        try await finish(newerRefresh)
        older.respond(with: Fixtures.badContent)  // lands last, after being superseded
        try await finish(olderRefresh)

        #expect(
            recorder.states == [
                .loading, .loaded(try Fixtures.decoded(Fixtures.cart(title: "v1"))),
                .loaded(try Fixtures.decoded(Fixtures.cart(title: "v3"))),
            ])
        let diagnostics = store.peek(\.diagnostics)
        #expect(diagnostics.isEmpty)
        let isLoading = store.peek(\.status.isLoading)
        #expect(!isLoading)
    }

    @Test func apiReplaceWidgetDuringPaginationSurvivesAppend() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        let next = await loader.suspend(for: .nextPage)
        await loader.respond(with: Fixtures.replaceStepper, for: .action(named: "set_quantity"))
        let (store, recorder) = makeStore()
        await store.loadInitial()

        let pagination = Task { await store.loadNextPage() }
        try await next.arrived()
        let request = ActionRequest(
            name: "set_quantity", pageID: "cart", widgetID: "qty", event: WidgetEvent.change, value: 2)
        try await store.performAction(request)
        next.respond(with: Fixtures.nextPage())
        try await finish(pagination)

        let first = try Fixtures.decoded(Fixtures.cart())
        let replacement = Widget(id: "qty", type: "stepper", content: ["value": 1, "label": "Qty (server)"])
        let replaced = try first.applying(.replaceWidget(id: "qty", widget: replacement))
        let merged = try Fixtures.appending(Fixtures.nextPage(), to: replaced)
        #expect(recorder.states == [.loading, .loaded(first), .loaded(replaced), .loaded(merged)])
        let label = store.peek(\.page)?.widget(withID: "qty")?.content["label"]
        #expect(label == "Qty (server)")
    }

    @Test func refreshClearsWidgetStateButMutationDoesNot() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        await loader.respond(with: Fixtures.cart(), for: .refresh)
        let (store, recorder) = makeStore()
        await store.loadInitial()
        store.stateStore.set(3, widgetID: "qty", key: "count")

        try store.apply(.removeWidget(id: "checkout"))
        let countAfterMutation = store.stateStore.peek(widgetID: "qty", key: "count", as: Int.self)
        #expect(countAfterMutation == 3)

        await store.refresh()
        let countAfterRefresh = store.stateStore.peek(widgetID: "qty", key: "count", as: Int.self)
        #expect(countAfterRefresh == nil)

        let first = try Fixtures.decoded(Fixtures.cart())
        #expect(
            recorder.states == [
                .loading, .loaded(first), .loaded(try first.applying(.removeWidget(id: "checkout"))), .loaded(first),
            ])
    }

    @Test func cancelInFlightDropsLateActionResponse() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        let action = await loader.suspend(for: .action(named: "set_quantity"))
        let (store, recorder) = makeStore()
        let dispatcher = ActionDispatcher(store: store, makeIdempotencyKey: { "key-1" })
        await store.loadInitial()
        let stepper = try #require(store.peek(\.page)?.widget(withID: "qty"))

        let tap = Task { await dispatcher.dispatch(WidgetEvent.change, of: stepper, value: 3) }
        let sent = try await action.arrived()
        #expect(
            sent.kind
                == .action(
                    ActionRequest(
                        name: "set_quantity", pageID: "cart", widgetID: "qty", event: "change", value: 3,
                        idempotencyKey: "key-1")))
        dispatcher.cancelInFlight()
        action.respond(with: Fixtures.replaceStepper)  // the late response
        let outcome = try await finish(tap)

        #expect(outcome == .dropped)
        #expect(dispatcher.peekEffects().isEmpty)
        #expect(recorder.states == [.loading, .loaded(try Fixtures.decoded(Fixtures.cart()))])
    }

    @Test func badWidgetContentYieldsPlaceholderAndDiagnosticWhileRestLoads() async throws {
        await loader.respond(with: Fixtures.badContent, for: .initial)
        let (store, recorder) = makeStore()

        await store.loadInitial()

        let page = try #require(store.peek(\.page))
        #expect(page.sections[0].widgets.map(\.id) == ["ok", "bad", "after"])
        #expect(page.widget(withID: "bad")?.rendering == .placeholder(code: "invalid_content"))
        #expect(page.widget(withID: "after")?.rendering == .content)
        let diagnostics = store.peek(\.diagnostics)
        #expect(diagnostics.map(\.code) == ["invalid_content"])
        #expect(diagnostics.map(\.widgetID) == ["bad"])
        #expect(recorder.states == [.loading, .loaded(page)])
    }

    @Test func emptyDocumentIsEmpty() async throws {
        await loader.respond(with: Fixtures.empty, for: .initial)
        let (store, recorder) = makeStore()

        await store.loadInitial()

        #expect(recorder.states == [.loading, .empty])
        let page = store.peek(\.page)
        #expect(page?.isEmpty == true)
    }
}
