import PageModel

/// The ``PageStore``'s transitions as a pure value: events in, effects out. No tasks, no main actor, no clock.
///
/// Each `…Requested` method changes the state and returns the effects the shell must execute (fetch, cancel,
/// reset widget state). Completions carry the token the request was issued with; a completion whose token is
/// no longer current is superseded and changes nothing, which is what makes "a superseded fetch never
/// publishes" exact.
public struct PageLifecycle: Sendable, Hashable {
    /// Work the shell performs after an event, in order.
    public enum Effect: Sendable, Hashable {
        /// `stateStore.reset()`: refresh must not inherit yesterday's stepper.
        case resetWidgetState
        /// Cancel the in-flight `initial` or `refresh` fetch (its completion is already superseded).
        case cancelDocumentFetch
        /// Fetch the document; report the outcome with `token`.
        case fetchDocument(PageRequest.Kind, token: Int)
        /// Cancel the in-flight next-page fetch (its completion is already superseded).
        case cancelPagination
        /// Fetch the next chunk of sections; report the outcome with `token`.
        case fetchNextPage(postback: String, token: Int)
    }

    /// What the store shows.
    public private(set) var state: PageState = .loading
    /// The last accepted document (`nil` before one): the total read, kept while reloading and after failures.
    public private(set) var page: PageModel?
    /// The pagination spinner flag; not a fifth state.
    public private(set) var isLoadingMore = false
    /// Findings about the current document, replaced as a batch when a load succeeds.
    public private(set) var diagnostics: [Diagnostic] = []
    /// The `initial` / `refresh` channel.
    public private(set) var documentStatus = RequestStatus()
    /// The `nextPage` channel.
    public private(set) var paginationStatus = RequestStatus()

    private var documentToken = 0
    private var paginationToken = 0
    /// Ids of ``page`` while it only grew by pagination, so each append costs the chunk, not the document.
    private var idIndex = IDIndexCache()

    public init() {}

    // MARK: Document loads

    /// `loadInitial()` / `retry()`: assigns `.loading` and fetches `.initial`, superseding any load in flight.
    public mutating func loadRequested() -> [Effect] {
        state = .loading
        return startDocumentFetch(.initial)
    }

    /// `refresh()`: keeps the current content, resets widget state, fetches `.refresh`.
    public mutating func refreshRequested() -> [Effect] {
        [.resetWidgetState] + startDocumentFetch(.refresh)
    }

    private mutating func startDocumentFetch(_ kind: PageRequest.Kind) -> [Effect] {
        var effects = supersedeDocumentFetch() + supersedePagination()
        documentStatus.start(kind)
        effects.append(.fetchDocument(kind, token: documentToken))
        return effects
    }

    /// A document fetch decoded. Publishes the document and replaces the diagnostics as one batch.
    ///
    /// - Returns: `false` when `token` was superseded; nothing changed.
    @discardableResult
    public mutating func fetchSucceeded(token: Int, _ decoded: Decoded<PageModel>) -> Bool {
        guard token == documentToken, documentStatus.isLoading else { return false }
        accept(decoded.value)
        diagnostics = decoded.diagnostics
        documentStatus.succeed()
        return true
    }

    /// A document fetch failed. Without content on screen the store becomes `.failed`; a loaded or empty
    /// document stays (a failed refresh is reported through ``documentStatus``, the page does not lie).
    ///
    /// - Returns: `false` when `token` was superseded; nothing changed.
    @discardableResult
    public mutating func fetchFailed(token: Int, _ error: PageLoadError) -> Bool {
        guard token == documentToken, documentStatus.isLoading else { return false }
        documentStatus.fail(error)
        switch state {
        case .loaded, .empty: break
        case .loading, .failed: state = .failed(message: error.message)
        }
        return true
    }

    // MARK: Pagination

    /// `loadNextPage()`: needs `.loaded`, `pagination.hasMore` (with a postback) and no next page in flight;
    /// otherwise returns no effect.
    public mutating func nextPageRequested() -> [Effect] {
        guard case .loaded(let current) = state, current.hasMore, let postback = current.pagination?.postback,
            !isLoadingMore
        else { return [] }
        paginationToken += 1
        isLoadingMore = true
        paginationStatus.start(.nextPage(postback: postback))
        return [.fetchNextPage(postback: postback, token: paginationToken)]
    }

    /// A next page decoded. Appends it to the document as it is *now* (not as it was when the fetch started),
    /// so a mutation that landed during the fetch survives; its diagnostics are appended as a batch.
    ///
    /// - Returns: `false` when `token` was superseded; nothing changed.
    @discardableResult
    public mutating func nextPageSucceeded(token: Int, _ decoded: Decoded<NextPage>) -> Bool {
        guard token == paginationToken, isLoadingMore else { return false }
        isLoadingMore = false
        paginationStatus.succeed()
        guard let current = page, state.showsDocument else { return true }
        var found = decoded.diagnostics
        var index = idIndex.index ?? PageIDIndex(current)
        idIndex.index = nil  // the index is moved, not copied, into the append
        accept(current.appending(decoded.value, diagnostics: &found, index: &index))
        idIndex.index = index
        diagnostics += found
        return true
    }

    /// A next page failed: never `.failed`. The page and its `hasMore` stay, so the sentinel can fire again.
    ///
    /// - Returns: `false` when `token` was superseded; nothing changed.
    @discardableResult
    public mutating func nextPageFailed(token: Int, _ error: PageLoadError) -> Bool {
        guard token == paginationToken, isLoadingMore else { return false }
        isLoadingMore = false
        paginationStatus.fail(error)
        return true
    }

    // MARK: Mutations

    /// `apply(_:)`: applies `mutations` in order to the shown document, all or nothing. Widget state is kept.
    ///
    /// `replacePage` works in any state and supersedes loads in flight (it is the newest document); other
    /// mutations need a `.loaded` or `.empty` document.
    /// - Throws: ``ContractError`` `mutation_target_not_found`, or `no_document` when nothing is shown.
    public mutating func applyRequested(_ mutations: [PageMutation]) throws(ContractError) -> [Effect] {
        var document = state.showsDocument ? page : nil
        var found: [Diagnostic] = []
        var replacesPage = false
        for (index, mutation) in mutations.enumerated() {
            if case .replacePage(let replacement) = mutation {
                document = replacement
                replacesPage = true
                continue
            }
            guard let base = document else {
                throw ContractError(
                    code: "no_document", path: JSONPointer.root / "mutations" / index,
                    message: "\(mutation.type) needs a loaded document; the store is \(state.name)")
            }
            document = try base.applying(mutation, diagnostics: &found)
        }
        guard let document else { return [] }
        var effects: [Effect] = []
        if replacesPage { effects = supersedeDocumentFetch() + supersedePagination() }
        accept(document)
        diagnostics += found
        return effects
    }

    /// Adds findings that arrived with an action response.
    public mutating func append(diagnostics more: [Diagnostic]) {
        diagnostics += more
    }

    // MARK: Helpers

    private mutating func accept(_ document: PageModel) {
        idIndex.index = nil
        page = document
        state = PageState(accepting: document)
    }

    private mutating func supersedeDocumentFetch() -> [Effect] {
        documentToken += 1
        guard documentStatus.isLoading else { return [] }
        documentStatus.cancel()
        return [.cancelDocumentFetch]
    }

    private mutating func supersedePagination() -> [Effect] {
        paginationToken += 1
        guard isLoadingMore else { return [] }
        isLoadingMore = false
        paginationStatus.cancel()
        return [.cancelPagination]
    }
}

extension PageState {
    /// True for `.loaded` and `.empty`: a document is on screen.
    var showsDocument: Bool {
        switch self {
        case .loaded, .empty: true
        case .loading, .failed: false
        }
    }

    /// `loading`, `loaded`, `empty` or `failed`, for messages.
    var name: String {
        switch self {
        case .loading: "loading"
        case .loaded: "loaded"
        case .empty: "empty"
        case .failed: "failed"
        }
    }
}

/// A cache that takes no part in the lifecycle's equality: two lifecycles in the same state are equal whether or
/// not one has indexed its document's ids yet.
private struct IDIndexCache: Sendable, Hashable {
    var index: PageIDIndex?

    static func == (lhs: IDIndexCache, rhs: IDIndexCache) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
