import PageModel
import PageStore
import Synchronization
import Testing

/// Cancellation and races (seed 001): a superseded load does not publish, whatever order the answers land in.
@Suite @MainActor struct PageStoreRaceTests {
    let loader = ScriptedPageLoader()

    /// Issue 18, defect 1: a next page fetched with the old document's cursor while a refresh was in flight must
    /// not be appended to the refreshed document (the cursor belongs to the old document).
    @Test func chunkFetchedWithTheOldCursorIsNotAppendedToTheRefreshedDocument() async throws {
        await loader.respond(with: Fixtures.cart(title: "v1", postback: "cursor-1"), for: .initial)
        let refresh = await loader.suspend(for: .refresh)
        let next = await loader.suspend(for: .nextPage)
        let store = PageStore(pageID: "cart", loader: loader)
        let recorder = StateRecorder(store)
        await store.loadInitial()

        let refreshing = Task { await store.refresh() }
        try await refresh.arrived()
        let paginating = Task { await store.loadNextPage() }  // still .loaded(v1): the seed allows it
        let sent = try await next.arrived()
        #expect(sent.kind == .nextPage(postback: "cursor-1"))
        refresh.respond(with: Fixtures.cart(title: "v2", postback: "cursor-2"))
        try await finish(refreshing)
        next.respond(with: Fixtures.nextPage("stale"))  // lands after the refreshed document
        try await finish(paginating)

        let refreshed = try Fixtures.decoded(Fixtures.cart(title: "v2", postback: "cursor-2"))
        #expect(
            recorder.states == [
                .loading, .loaded(try Fixtures.decoded(Fixtures.cart(title: "v1"))), .loaded(refreshed),
            ])
        let page = store.peek(\.page)
        #expect(page == refreshed)
        let isLoadingMore = store.peek(\.isLoadingMore)
        #expect(!isLoadingMore)
        let paginationError = store.peek(\.paginationStatus.error)
        #expect(paginationError == nil)
    }

    /// The other half of the rule: when the refresh fails, the old document stays, and so does its cursor — a
    /// chunk fetched with it during the refresh is appended.
    @Test func chunkFetchedDuringAFailedRefreshIsAppended() async throws {
        await loader.respond(with: Fixtures.cart(title: "v1", postback: "cursor-1"), for: .initial)
        let refresh = await loader.suspend(for: .refresh)
        let next = await loader.suspend(for: .nextPage)
        let store = PageStore(pageID: "cart", loader: loader)
        let recorder = StateRecorder(store)
        await store.loadInitial()

        let refreshing = Task { await store.refresh() }
        try await refresh.arrived()
        let paginating = Task { await store.loadNextPage() }
        try await next.arrived()
        refresh.fail(with: Fixtures.serverError)
        try await finish(refreshing)
        next.respond(with: Fixtures.nextPage("more"))
        try await finish(paginating)

        let first = try Fixtures.decoded(Fixtures.cart(title: "v1"))
        let merged = try Fixtures.appending(Fixtures.nextPage("more"), to: first)
        #expect(recorder.states == [.loading, .loaded(first), .loaded(merged)])
        let refreshError = store.peek(\.status.error)
        #expect(refreshError == Fixtures.serverError)
    }

    /// A loader that honours cancellation sees it when a newer load starts, and the older load never publishes
    /// (neither its cancellation error nor anything else).
    @Test func aLoaderThatHonoursCancellationObservesItAndTheOlderLoadNeverPublishes() async throws {
        let honouring = CancellationHonouringLoader(fresh: Fixtures.cart(title: "newer"))
        let store = PageStore(pageID: "cart", loader: honouring)
        let recorder = StateRecorder(store)

        let older = Task { await store.loadInitial() }
        let arrived = try await bounded("the older request to arrive") {
            await honouring.arrivals.first { _ in true }
        }
        #expect(arrived?.kind == .initial)
        await store.loadInitial()
        let cancelled = try await bounded("the older request to see its cancellation") {
            await honouring.cancellations.first { _ in true }
        }
        try await finish(older)

        #expect(cancelled?.kind == .initial)
        let newer = try Fixtures.decoded(Fixtures.cart(title: "newer"))
        #expect(recorder.states == [.loading, .loaded(newer)])
        let error = store.peek(\.status.error)
        #expect(error == nil)
        let calls = await honouring.calls
        #expect(calls == 2)
    }

    /// Decoding runs in a detached task, off the main actor, for pages, next pages and action responses.
    ///
    /// Observable through task-locals: every task the store creates or awaits inherits the caller's task-local
    /// values — except a detached task, which inherits nothing and runs nonisolated on the global executor.
    /// (On Linux the main actor does not run on the process's main thread under `swift test`, so thread
    /// identity cannot tell.)
    @Test func decodeRunsDetachedOffTheMainActor() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        await loader.respond(with: Fixtures.nextPage(), for: .nextPage)
        await loader.respond(with: Fixtures.replaceStepper, for: .action)
        let decodes = DecodeLog()
        let store = PageStore(pageID: "cart", loader: loader)
        store.willDecode = { kind in decodes.record(kind, caller: DecodeProbe.caller) }

        try await DecodeProbe.$caller.withValue("the test") {
            let inherited = await Task { DecodeProbe.caller }.value
            #expect(inherited == "the test")  // the control: a non-detached task sees the caller's value
            await store.loadInitial()
            await store.loadNextPage()
            try await store.performAction(
                ActionRequest(
                    name: "set_quantity", pageID: "cart", widgetID: "qty", event: WidgetEvent.change, value: 2))
        }

        let entries = decodes.entries
        #expect(entries.map(\.kind) == ["initial", "nextPage", "action"])
        #expect(entries.map(\.caller) == [nil, nil, nil])
    }
}

/// A task-local the decode tests bind around store calls.
enum DecodeProbe {
    @TaskLocal static var caller: String?
}

/// What ``PageStore/willDecode`` saw, from any thread.
final class DecodeLog: Sendable {
    struct Entry: Sendable {
        var kind: String
        /// ``DecodeProbe/caller`` as the decoding task saw it.
        var caller: String?
    }

    private let log = Mutex<[Entry]>([])

    var entries: [Entry] { log.withLock { $0 } }

    func record(_ kind: PageRequest.Kind, caller: String?) {
        let name =
            switch kind {
            case .initial: "initial"
            case .refresh: "refresh"
            case .nextPage: "nextPage"
            case .action: "action"
            }
        log.withLock { $0.append(Entry(kind: name, caller: caller)) }
    }
}

/// A loader that honours cancellation, like a real network client: its first call waits for the network (at
/// most 30 s) and ends with `CancellationError` as soon as its task is cancelled, reporting that it saw it;
/// later calls answer `fresh` at once.
actor CancellationHonouringLoader: PageLoader {
    nonisolated let arrivals: AsyncStream<PageRequest>
    nonisolated let cancellations: AsyncStream<PageRequest>
    private let arrival: AsyncStream<PageRequest>.Continuation
    private let cancellation: AsyncStream<PageRequest>.Continuation
    private let fresh: [UInt8]
    private(set) var calls = 0

    init(fresh: [UInt8]) {
        self.fresh = fresh
        (arrivals, arrival) = AsyncStream.makeStream()
        (cancellations, cancellation) = AsyncStream.makeStream()
    }

    func load(_ request: PageRequest) async throws -> [UInt8] {
        calls += 1
        guard calls == 1 else { return fresh }
        arrival.yield(request)
        do {
            try await Task.sleep(for: .seconds(30))  // the slow network; cancellation ends it at once
        } catch {
            cancellation.yield(request)
            throw error
        }
        return Fixtures.cart(title: "older")
    }
}
