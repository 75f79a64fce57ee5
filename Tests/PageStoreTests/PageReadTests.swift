import PageModel
import PageStore
import Testing

/// What `state`, `page` and `state.loadedPage` answer (docs/pagestore.md, "`page`: the decision").
@Suite @MainActor struct PageReadTests {
    let loader = ScriptedPageLoader()

    /// The sentinel of docs/pagestore.md ("Reading discipline"), verbatim: drawn only when `loadNextPage()`
    /// would fetch.
    func drawsSentinel(_ store: PageStore) -> Bool {
        var drawn = false
        func drawSentinel() { drawn = true }
        let state = store.state
        let isLoadingMore = store.isLoadingMore
        if let loadedPage = state.loadedPage, loadedPage.hasMore, !isLoadingMore { drawSentinel() }
        return drawn
    }

    /// Issue 18, defect 3: in `.loading` and `.failed` the last accepted document still has `hasMore`, but
    /// `loadNextPage()` ignores the sentinel there, so the docs' example must not draw it.
    @Test func theSentinelIsDrawnExactlyWhenLoadNextPageWouldFetch() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        let reload = await loader.suspend(for: .initial)
        let store = PageStore(pageID: "cart", loader: loader)
        await store.loadInitial()
        #expect(drawsSentinel(store))

        let reloading = Task { await store.loadInitial() }
        try await reload.arrived()
        let loadingState = store.peek(\.state)
        #expect(loadingState == .loading)
        #expect(!drawsSentinel(store))
        await store.loadNextPage()  // ignored while .loading
        reload.fail(with: Fixtures.serverError)
        try await finish(reloading)

        let failedState = store.peek(\.state)
        #expect(failedState == .failed(message: "HTTP 500 Internal Server Error"))
        #expect(!drawsSentinel(store))
        await store.loadNextPage()  // ignored while .failed
        let requests = await loader.requests
        #expect(requests.map(\.kind) == [.initial, .initial])
    }

    /// The decision: `page` is seed 000's total read (the last accepted document, kept through `.loading` and
    /// `.failed`); seed 001's "convenience when `.loaded`" is `state.loadedPage`, and the two agree whenever the
    /// state is `.loaded`.
    @Test func pageIsTheLastAcceptedDocumentAndLoadedPageIsSeed001sConvenience() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        await loader.fail(with: Fixtures.serverError, for: .initial)
        let store = PageStore(pageID: "cart", loader: loader)
        var pairs: [(PageState, PageModel?)] = []
        store.stateDidChange = { state in pairs.append((state, store.peek(\.page))) }

        await store.loadInitial()
        await store.retry()

        let cart = try Fixtures.decoded(Fixtures.cart())
        #expect(pairs.map(\.0) == [.loaded(cart), .loading, .failed(message: "HTTP 500 Internal Server Error")])
        #expect(pairs.map(\.1) == [cart, cart, cart])
        #expect(pairs.map(\.0.loadedPage) == [cart, nil, nil])
        for (state, page) in pairs {
            if let loaded = state.loadedPage { #expect(page == loaded) }
        }
    }

    @Test(arguments: [
        #"{"id": "cart", "header": [{"id": "h", "type": "text", "content": {"text": "only the header"}}], "sections": []}"#,
        #"{"id": "cart", "sections": [{"id": "s", "widgets": []}], "footer": [{"id": "f", "type": "divider"}]}"#,
        #"{"id": "cart", "sections": [{"id": "s", "widgets": [{"id": "w", "type": "divider"}]}]}"#,
    ])
    func aWidgetInHeaderSectionsOrFooterIsLoaded(_ pageObject: String) async throws {
        await loader.respond(with: Fixtures.page(pageObject), for: .initial)
        let store = PageStore(pageID: "cart", loader: loader)
        let recorder = StateRecorder(store)

        await store.loadInitial()

        #expect(recorder.states == [.loading, .loaded(try Fixtures.decoded(Fixtures.page(pageObject)))])
    }

    @Test(arguments: [
        #"{"id": "cart", "sections": []}"#,
        #"{"id": "cart", "header": [], "sections": [{"id": "s", "widgets": []}, {"id": "t"}], "footer": []}"#,
    ])
    func noWidgetAnywhereIsEmpty(_ pageObject: String) async throws {
        await loader.respond(with: Fixtures.page(pageObject), for: .initial)
        let store = PageStore(pageID: "cart", loader: loader)
        let recorder = StateRecorder(store)

        await store.loadInitial()

        #expect(recorder.states == [.loading, .empty])
        let page = store.peek(\.page)
        #expect(page == (try Fixtures.decoded(Fixtures.page(pageObject))))
    }
}
