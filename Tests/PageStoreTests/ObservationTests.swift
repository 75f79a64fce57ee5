import Observation
import PageModel
import PageStore
import Testing

/// What invalidates whom: two objects, two reasons to invalidate (seed 001), and seed 000's reads.
@Suite @MainActor struct ObservationTests {
    let loader = ScriptedPageLoader()

    func loadedStore() async -> PageStore {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        let store = PageStore(pageID: "cart", loader: loader)
        await store.loadInitial()
        return store
    }

    @Test func stepperChangeDoesNotInvalidateAPageReader() async throws {
        let store = await loadedStore()
        let pageReader = track {
            let page = store.page
            let state = store.state
            _ = (page, state)
        }
        let stepperReader = track {
            let quantity = store.stateStore.binding(widgetID: "qty", key: "count", default: 1)
            _ = quantity.wrappedValue
        }

        store.stateStore.set(3, widgetID: "qty", key: "count")

        #expect(!pageReader.hasFired)
        #expect(stepperReader.hasFired)
    }

    @Test func refreshInvalidatesTheWidgetStateReader() async throws {
        let store = await loadedStore()
        store.stateStore.set(3, widgetID: "qty", key: "count")
        let stepperReader = track {
            let count = store.stateStore.value(widgetID: "qty", key: "count", as: Int.self)
            _ = count
        }
        let refresh = await loader.suspend(for: .refresh)

        let refreshing = Task { await store.refresh() }
        try await refresh.arrived()

        #expect(stepperReader.hasFired)  // reset happens when the refresh starts, before the response
        refresh.respond(with: Fixtures.cart())
        try await finish(refreshing)
    }

    @Test func peekRegistersNothing() async throws {
        let store = await loadedStore()
        let peeker = track {
            let page = store.peek(\.page)
            let state = store.peek(\.state)
            let isLoading = store.peek(\.status.isLoading)
            let count = store.stateStore.peek(widgetID: "qty", key: "count", as: Int.self)
            _ = (page, state, isLoading, count)
        }
        let trackedReader = track {
            let page = store.page
            let count = store.stateStore.value(widgetID: "qty", key: "count", as: Int.self)
            _ = (page, count)
        }

        try store.apply(.removeWidget(id: "checkout"))
        store.stateStore.set(3, widgetID: "qty", key: "count")
        await loader.respond(with: Fixtures.cart(title: "Again"), for: .refresh)
        await store.refresh()

        #expect(!peeker.hasFired)
        #expect(trackedReader.hasFired)  // the same changes do invalidate tracked reads
    }

    @Test func plainPageReadIsStableWhileAReloadIsLoading() async throws {
        let store = await loadedStore()
        let reload = await loader.suspend(for: .initial)
        let pageReader = track {
            let page = store.page
            _ = page
        }
        let stateReader = track {
            let state = store.state
            _ = state
        }

        let reloading = Task { await store.loadInitial() }
        try await reload.arrived()

        #expect(stateReader.hasFired)  // .loading was published
        #expect(!pageReader.hasFired)  // the last accepted document is still the answer
        let page = store.peek(\.page)
        #expect(page == (try Fixtures.decoded(Fixtures.cart())))
        reload.respond(with: Fixtures.cart(title: "New"))
        try await finish(reloading)
        #expect(pageReader.hasFired)
    }

    @Test func statusLensTracksEachFieldOnItsOwn() async throws {
        let store = await loadedStore()
        let lensCreation = track {
            let status = store.status
            _ = status
        }
        let succeededReader = track {
            let status = store.status
            _ = status.hasSucceeded
        }
        let loadingReader = track {
            let status = store.status
            _ = status.isLoading
        }
        let valueReader = track {
            let status = store.status
            _ = status.value
        }
        let value = store.peek(\.status.value)
        #expect(value == (try Fixtures.decoded(Fixtures.cart())), "the accepted document")
        let refresh = await loader.suspend(for: .refresh)

        let refreshing = Task { await store.refresh() }
        try await refresh.arrived()

        #expect(!lensCreation.hasFired)
        #expect(!succeededReader.hasFired)  // already true; the refresh does not touch it
        #expect(loadingReader.hasFired)
        #expect(!valueReader.hasFired, "loading does not touch the accepted value")
        let kind = store.peek(\.status.kind)
        #expect(kind == .refresh)
        refresh.fail(with: Fixtures.serverError)
        try await finish(refreshing)

        let state = store.peek(\.state)
        #expect(state == .loaded(try Fixtures.decoded(Fixtures.cart())))  // a failed refresh keeps the page
        let error = store.peek(\.status.error)
        #expect(error == Fixtures.serverError)
        #expect(!valueReader.hasFired, "nor does a failed refresh: the last accepted document stays the value")
    }

    /// `status.value` is invalidated when a document is accepted, and only then; `isLoading` readers are not
    /// invalidated by it (seed 000: each field tracked separately).
    @Test func statusValueChangesWhenADocumentIsAccepted() async throws {
        let store = await loadedStore()
        let valueReader = track {
            let status = store.status
            _ = status.value
        }
        let refresh = await loader.suspend(for: .refresh)
        let refreshing = Task { await store.refresh() }
        try await refresh.arrived()
        #expect(!valueReader.hasFired)
        let loadingReader = track {
            let status = store.status
            _ = status.isLoading
        }
        refresh.respond(with: Fixtures.cart(title: "New"))
        try await finish(refreshing)
        #expect(valueReader.hasFired)
        #expect(loadingReader.hasFired, "the refresh ended")
        let value = store.peek(\.status.value)
        #expect(value?.title == "New")
        #expect(value == store.peek(\.page), "the same document as the plain read")
    }

    @Test func widgetStateKeysAreSeparateDependencies() {
        let stateStore = WidgetStateStore()
        stateStore.set(false, widgetID: "faq", key: "expanded")
        stateStore.set(1, widgetID: "qty", key: "count")
        let accordionReader = track {
            let expanded = stateStore.value(widgetID: "faq", key: "expanded", as: Bool.self)
            _ = expanded
        }

        stateStore.set(2, widgetID: "qty", key: "count")
        stateStore.set(false, widgetID: "faq", key: "expanded")  // unchanged value: no notification

        #expect(!accordionReader.hasFired)
        stateStore.reset()
        #expect(accordionReader.hasFired)
    }
}
