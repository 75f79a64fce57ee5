import PageModel
import PageStore
import Testing

/// A next page costs the chunk, not the document: the store appends to the section storage it already holds
/// instead of copying every section shown. Checked by where that storage lives, never by timing (bench/verify).
@Suite @MainActor struct PageStoreAppendTests {
    let loader = ScriptedPageLoader()

    /// The address of the shown document's section storage; the read keeps no reference to the document.
    static func sectionStorage(of store: PageStore) -> UInt? {
        store.peek(\.page)?.sections.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { UInt(bitPattern: $0) }
        }
    }

    /// A store showing the cart, with `chunks` next pages of one section queued after it.
    func storeWithQueuedChunks(_ chunks: Int) async -> PageStore {
        await loader.respond(with: Fixtures.cart(postback: "cursor-0"), for: .initial)
        for index in 0..<chunks {
            let postback = index + 1 < chunks ? "cursor-\(index + 1)" : nil
            await loader.respond(with: Fixtures.nextPage("more-\(index)", postback: postback), for: .nextPage)
        }
        let store = PageStore(pageID: "cart", loader: loader)
        await store.loadInitial()
        return store
    }

    @Test func chunksAreAppendedInPlaceNotToACopyOfTheDocument() async throws {
        let chunks = 64
        let store = await storeWithQueuedChunks(chunks)
        var moves = 0
        var storage = Self.sectionStorage(of: store)
        for _ in 0..<chunks {
            await store.loadNextPage()
            let now = Self.sectionStorage(of: store)
            if now != storage { moves += 1 }
            storage = now
        }
        let sections = store.peek(\.page)?.sections.map(\.id)
        #expect(sections == ["items"] + (0..<chunks).map { "more-\($0)" })
        // Growing by doubling moves the storage about log2(65) ≈ 7 times; a copy per chunk moves it every time.
        #expect(moves <= 12, "the section storage moved \(moves) times in \(chunks) chunks")
    }

    @Test func aReaderHoldingTheDocumentKeepsItsValue() async throws {
        let store = await storeWithQueuedChunks(2)
        await store.loadNextPage()
        let held = try #require(store.peek(\.page))
        await store.loadNextPage()
        #expect(held.sections.map(\.id) == ["items", "more-0"])
        #expect(held.hasMore)
        let page = try #require(store.peek(\.page))
        #expect(page.sections.map(\.id) == ["items", "more-0", "more-1"])
        #expect(!page.hasMore)
    }

    @Test func eachAppendedChunkInvalidatesReadersAndReportsItsStateOnce() async throws {
        let store = await storeWithQueuedChunks(2)
        var states: [PageState] = []
        store.stateDidChange = { states.append($0) }
        let pageReader = track {
            let page = store.page
            _ = page
        }
        let stateReader = track {
            let state = store.state
            _ = state
        }
        await store.loadNextPage()
        #expect(pageReader.hasFired)
        #expect(stateReader.hasFired)
        let page = try #require(store.peek(\.page))
        #expect(states == [.loaded(page)])
        #expect(store.peek(\.state) == .loaded(page))
    }

    @Test func aSupersededChunkInvalidatesNoReader() async throws {
        await loader.respond(with: Fixtures.cart(title: "v1", postback: "cursor-1"), for: .initial)
        let refresh = await loader.suspend(for: .refresh)
        let next = await loader.suspend(for: .nextPage)
        let store = PageStore(pageID: "cart", loader: loader)
        await store.loadInitial()
        let refreshing = Task { await store.refresh() }
        try await refresh.arrived()
        let paginating = Task { await store.loadNextPage() }
        try await next.arrived()
        refresh.respond(with: Fixtures.cart(title: "v2", postback: "cursor-2"))
        try await finish(refreshing)
        let refreshed = try #require(store.peek(\.page))
        var states: [PageState] = []
        store.stateDidChange = { states.append($0) }
        let reader = track {
            let page = store.page
            let state = store.state
            let diagnostics = store.diagnostics
            _ = (page, state, diagnostics)
        }

        next.respond(with: Fixtures.nextPage("stale"))  // superseded by the refresh: appended nowhere
        try await finish(paginating)

        #expect(!reader.hasFired)
        #expect(states.isEmpty)
        #expect(store.peek(\.page) == refreshed)
    }
}
