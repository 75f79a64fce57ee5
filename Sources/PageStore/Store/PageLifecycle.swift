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
    /// Findings about the shown document: replaced as a batch when a load succeeds or a `replacePage` lands,
    /// extended by next pages and other mutations (findings about a replaced or removed widget go with it).
    public private(set) var diagnostics: [Diagnostic] = []
    /// The findings the latest accepted event brought (a load, a next page, an applied response), in full:
    /// what ``PageStore/diagnosticsDidArrive`` reports.
    public private(set) var arrivedDiagnostics: [Diagnostic] = []
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

    /// A document fetch decoded. Publishes the document and replaces the diagnostics as one batch, and
    /// supersedes a next page in flight: its cursor belongs to the document just replaced.
    ///
    /// - Returns: `nil` when `token` was superseded (nothing changed); else the effects to execute.
    @discardableResult
    public mutating func fetchSucceeded(token: Int, _ decoded: Decoded<PageModel>) -> [Effect]? {
        guard token == documentToken, documentStatus.isLoading else { return nil }
        let effects = isLoadingMore ? supersedePagination() : []
        accept(decoded.value)
        diagnostics = decoded.diagnostics
        arrivedDiagnostics = decoded.diagnostics
        documentStatus.succeed()
        return effects
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
    /// otherwise returns no effect. During a refresh the shown document's cursor is used; the chunk is appended
    /// only if that document is still shown when it arrives (a successful refresh supersedes it).
    public mutating func nextPageRequested() -> [Effect] {
        guard let current = state.loadedPage, current.hasMore, let postback = current.pagination?.postback,
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
        guard var document = page, state.showsDocument else { return true }
        let wasLoaded = state.loadedPage != nil
        // `page` and `state` hold the document too: let go of them so that, when nobody else holds it (the store
        // lets go of its copies first), the chunk is appended in place rather than to a copy of every section.
        page = nil
        state = .loading
        var found = decoded.diagnostics
        var index = idIndex.index ?? PageIDIndex(document)
        idIndex.index = nil  // the index is moved, not copied, into the append
        document.append(decoded.value, diagnostics: &found, index: &index)
        page = document
        // Appending adds widgets and removes none: a loaded document stays loaded without counting them again.
        state = wasLoaded ? .loaded(document) : PageState(accepting: document)
        idIndex.index = index
        diagnostics += found
        arrivedDiagnostics = found
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

    /// `apply(_:)` and an action response: applies `mutations` in order to the shown document, all or nothing.
    /// Widget state is kept.
    ///
    /// `replacePage` works in any state and supersedes loads in flight (it is the newest document); other
    /// mutations need a `.loaded` or `.empty` document.
    ///
    /// Diagnostics: a `replacePage` is a new document, so the findings of the old one are dropped; other
    /// mutations keep them, except findings about a widget they replace or remove (or its descendants). Then
    /// `responseDiagnostics` (the action response's decode findings, paths into the response) and the rename
    /// findings of applying (paths `/mutations/{index}/…`) are added; findings of mutations before the last
    /// `replacePage` are not, they describe content that was replaced.
    /// - Throws: ``ContractError`` `mutation_target_not_found`, or `no_document` when nothing is shown.
    public mutating func applyRequested(
        _ mutations: [PageMutation], responseDiagnostics: [Diagnostic] = []
    ) throws(ContractError) -> [Effect] {
        var document = state.showsDocument ? page : nil
        var kept = diagnostics
        var renames: [Diagnostic] = []
        var allRenames: [Diagnostic] = []
        var lastReplacement: Int?
        for (index, mutation) in mutations.enumerated() {
            if case .replacePage(let replacement) = mutation {
                document = replacement
                lastReplacement = index
                kept = []
                renames = []
                continue
            }
            guard let base = document else {
                throw ContractError(
                    code: "no_document", path: JSONPointer.root / "mutations" / index,
                    message: "\(mutation.type) needs a loaded document; the store is \(state.name)")
            }
            var found: [Diagnostic] = []
            document = try base.applying(mutation, diagnostics: &found)
            let rebased = found.map { $0.rebased(onto: JSONPointer.root / "mutations" / index) }
            renames += rebased
            allRenames += rebased
            if let stale = base.widgetIDs(replacedOrRemovedBy: mutation) {
                kept.removeAll { $0.widgetID.map(stale.contains) ?? false }
            }
        }
        arrivedDiagnostics = responseDiagnostics + allRenames
        guard let document else { return [] }
        var effects: [Effect] = []
        if lastReplacement != nil { effects = supersedeDocumentFetch() + supersedePagination() }
        accept(document)
        let current = responseDiagnostics.filter { diagnostic in
            guard let lastReplacement, let index = diagnostic.mutationIndex else { return true }
            return index >= lastReplacement
        }
        diagnostics = kept + current + renames
        return effects
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

extension Diagnostic {
    /// This finding with its path placed under `prefix` (`/sections/0/id` → `/mutations/2/sections/0/id`).
    func rebased(onto prefix: JSONPointer) -> Diagnostic {
        var copy = self
        copy.path = JSONPointer(string: prefix.string + path.string)
        return copy
    }

    /// `k` when the path is under `/mutations/k` (a finding in an action response), else `nil`.
    var mutationIndex: Int? {
        let text = path.string
        let marker = "/mutations/"
        guard text.hasPrefix(marker) else { return nil }
        return Int(text.dropFirst(marker.count).prefix { $0 != "/" })
    }
}

extension PageModel {
    /// The ids of the widget a `replaceWidget` or `removeWidget` targets and of its descendants; `nil` for other
    /// mutations or a missing target.
    func widgetIDs(replacedOrRemovedBy mutation: PageMutation) -> Set<String>? {
        let target: String
        switch mutation {
        case .replaceWidget(let id, _), .removeWidget(let id): target = id
        case .replacePage, .appendSections, .prependSections: return nil
        }
        guard let widget = widget(withID: target) else { return nil }
        var ids: Set<String> = []
        func collect(_ widget: Widget) {
            ids.insert(widget.id)
            for child in widget.children { collect(child) }
        }
        collect(widget)
        return ids
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
