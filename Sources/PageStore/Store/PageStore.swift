import Observation
import PageModel

/// The embedded, headless device client: owns the decoded document of one page and its lifecycle.
///
/// `@Observable` and `@MainActor`. Views (or tests) observe; they never poke the document. Changes go through
/// ``apply(_:)`` or the load methods. Transitions are decided by the pure ``PageLifecycle``; this class only
/// executes them with tasks: fetches run on the loader, decoding runs detached off the main actor, a
/// superseded fetch never publishes, and pagination runs in its own task.
///
/// ```swift
/// let store = PageStore(pageID: "cart", loader: loader, registry: registry)
/// await store.loadInitial()
/// await store.refresh()
/// await store.loadNextPage()
/// ```
@Observable
@MainActor
public final class PageStore {
    /// What the store shows: `.loading`, `.loaded(page)`, `.empty` or `.failed(message:)`.
    public private(set) var state: PageState = .loading
    /// The pagination spinner flag. Not a fifth state: a loaded tree shows a sentinel without becoming `.loading`.
    public private(set) var isLoadingMore = false
    /// Findings about the current document (placeholders, renamed ids), replaced as a batch after each
    /// successful load, so they never mix two responses.
    public private(set) var diagnostics: [Diagnostic] = []
    /// The last accepted document, or `nil` before one: the total read (seed 000). It is kept while a load is
    /// in flight and after one fails; it changes only when a new document is accepted. Seed 001's "page as a
    /// convenience when state is .loaded" is ``PageState/loadedPage``; the two agree whenever `state` is `.loaded`.
    public private(set) var page: PageModel?

    public let pageID: String
    /// Page parameters sent with `initial` and `refresh` requests.
    public let parameters: [String: String]
    public let registry: WidgetRegistry
    /// The page's ephemeral widget state. Refresh resets it; pagination and mutations do not.
    public let stateStore: WidgetStateStore

    /// Called after every assignment of ``state``, in order, with the new value; for logging hosts and for
    /// tests that assert the full sequence of states.
    @ObservationIgnored public var stateDidChange: (@MainActor (PageState) -> Void)?

    /// Called with each batch of diagnostics the store accepts, in order, right after publishing it: a document
    /// load's, a next page's, an applied mutation's or an action response's (all of its findings). A superseded
    /// response reports nothing. Hosts and `flow-bff verify` keep their own record with it; ``diagnostics`` is
    /// only the shown document's findings.
    @ObservationIgnored public var diagnosticsDidArrive: (@MainActor ([Diagnostic]) -> Void)?

    /// Called on the decoding task, off the main actor, just before a response body of `kind` is decoded: for
    /// hosts that trace decode cost, and for tests.
    @ObservationIgnored public var willDecode: (@Sendable (PageRequest.Kind) -> Void)?

    @ObservationIgnored private let loader: any PageLoader
    @ObservationIgnored private let decoder: PageDecoder
    @ObservationIgnored private var lifecycle = PageLifecycle()
    @ObservationIgnored private var documentTask: Task<Void, Never>?
    @ObservationIgnored private var paginationTask: Task<Void, Never>?
    private let documentStatus = RequestStatusStorage()
    private let paginationStatusStorage = RequestStatusStorage()

    /// - Parameters:
    ///   - parameters: page parameters (e.g. `["productID": "42"]`). Default none.
    ///   - registry: default a ``WidgetRegistry`` with the ``UnknownWidgetPolicy/default`` policy.
    ///   - stateStore: default a new, empty store.
    ///   - decoder: default the standard catalog.
    public init(
        pageID: String, parameters: [String: String] = [:], loader: any PageLoader,
        registry: WidgetRegistry = WidgetRegistry(), stateStore: WidgetStateStore = WidgetStateStore(),
        decoder: PageDecoder = PageDecoder()
    ) {
        self.pageID = pageID
        self.parameters = parameters
        self.loader = loader
        self.registry = registry
        self.stateStore = stateStore
        self.decoder = decoder
    }

    // MARK: Reading

    /// The opt-in status lens of document loads (`initial`, `refresh`); each field is its own tracked read.
    public var status: PageStatus { PageStatus(storage: documentStatus, isTracked: true, store: self) }

    /// The opt-in status lens of pagination (`nextPage`); `isLoading` equals ``isLoadingMore``.
    public var paginationStatus: PageStatus {
        PageStatus(storage: paginationStatusStorage, isTracked: true, store: self)
    }

    /// A one-time read that registers no Observation dependency (seed 000's `peek`), e.g.
    /// `let page = store.peek(\.page)` in a test assertion.
    public func peek<Value>(_ keyPath: KeyPath<UntrackedPageStore, Value>) -> Value {
        UntrackedPageStore(store: self)[keyPath: keyPath]
    }

    var untrackedState: PageState { _state }
    var untrackedIsLoadingMore: Bool { _isLoadingMore }
    var untrackedDiagnostics: [Diagnostic] { _diagnostics }
    var untrackedPage: PageModel? { _page }
    var documentStatusStorage: RequestStatusStorage { documentStatus }
    var paginationStatusRecord: RequestStatusStorage { paginationStatusStorage }

    // MARK: Loading

    /// Assigns `.loading` and fetches `.initial`; returns when that fetch has finished or was superseded.
    public func loadInitial() async {
        await run(lifecycle.loadRequested())
    }

    /// Keeps the current content, resets ``stateStore``, fetches `.refresh`; returns when that fetch has
    /// finished or was superseded. A failure keeps a shown document and is reported through ``status``.
    public func refresh() async {
        await run(lifecycle.refreshRequested())
    }

    /// ``loadInitial()`` again, after `.failed`.
    public func retry() async {
        await loadInitial()
    }

    /// Fetches the next chunk when `.loaded`, `hasMore` and not already loading more; otherwise does nothing.
    /// Runs in its own task, appends to the document as it is when the chunk arrives, and never assigns
    /// `.failed`: on failure the page and its `hasMore` stay, so the sentinel can fire again.
    public func loadNextPage() async {
        await run(lifecycle.nextPageRequested())
    }

    // MARK: Mutations and actions

    /// Applies one mutation to the document and publishes it. Widget state is kept.
    ///
    /// - Throws: ``ContractError`` `mutation_target_not_found`, or `no_document` when no document is shown
    ///   (`replacePage` works in every state).
    public func apply(_ mutation: PageMutation) throws(ContractError) {
        try apply([mutation])
    }

    /// Applies mutations in order, all or nothing, and publishes the result once.
    ///
    /// A `replacePage` replaces ``diagnostics`` (the old document's findings go with it); other mutations drop
    /// the findings about the widgets they replace or remove and add their rename findings.
    public func apply(_ mutations: [PageMutation]) throws(ContractError) {
        try apply(mutations, responseDiagnostics: [])
    }

    private func apply(_ mutations: [PageMutation], responseDiagnostics: [Diagnostic]) throws(ContractError) {
        let effects = try lifecycle.applyRequested(mutations, responseDiagnostics: responseDiagnostics)
        execute(effects)
        publish()
        reportArrivedDiagnostics()
    }

    /// An api round trip: sends `request` through the loader (`.action`), decodes the ``ActionResponse``
    /// detached, then applies its mutations. Returns the response; running its effects is the caller's job
    /// (``ActionDispatcher`` does it).
    ///
    /// If the calling task is cancelled before the response is applied, nothing is applied and this throws a
    /// `cancelled` error: a round trip cannot land on a page that went away.
    /// - Throws: ``PageLoadError`` for loader, decode and mutation failures (`mutation_target_not_found`).
    @discardableResult
    public func performAction(_ request: ActionRequest) async throws(PageLoadError) -> ActionResponse {
        let decoded: Decoded<ActionResponse>
        do {
            let bytes = try await loader.load(PageRequest(pageID: pageID, kind: .action(request)))
            try Task.checkCancellation()
            decoded = try await Self.decodeDetached(.action(request), willDecode) { [decoder] in
                try decoder.decodeActionResponse(bytes)
            }
            try Task.checkCancellation()
        } catch {
            throw PageLoadError(error)
        }
        do {
            try apply(decoded.value.mutations, responseDiagnostics: decoded.diagnostics)
        } catch {
            throw PageLoadError(contract: error)
        }
        return decoded.value
    }

    // MARK: Executing decisions

    private func run(_ effects: [PageLifecycle.Effect]) async {
        let started = execute(effects)
        publish()
        await started?.value
    }

    /// Executes the lifecycle's effects; returns the fetch task it started, if any.
    @discardableResult
    private func execute(_ effects: [PageLifecycle.Effect]) -> Task<Void, Never>? {
        var started: Task<Void, Never>?
        for effect in effects {
            switch effect {
            case .resetWidgetState:
                stateStore.reset()
            case .cancelDocumentFetch:
                documentTask?.cancel()
                documentTask = nil
            case .cancelPagination:
                paginationTask?.cancel()
                paginationTask = nil
            case .fetchDocument(let kind, let token):
                let task = fetchDocument(PageRequest(pageID: pageID, parameters: parameters, kind: kind), token: token)
                documentTask = task
                started = task
            case .fetchNextPage(let postback, let token):
                let task = fetchNextPage(PageRequest(pageID: pageID, kind: .nextPage(postback: postback)), token: token)
                paginationTask = task
                started = task
            }
        }
        return started
    }

    private func fetchDocument(_ request: PageRequest, token: Int) -> Task<Void, Never> {
        Task { [loader, decoder, willDecode] in
            var accepted = false
            do {
                let bytes = try await loader.load(request)
                let decoded = try await Self.decodeDetached(request.kind, willDecode) { try decoder.decodePage(bytes) }
                if let effects = lifecycle.fetchSucceeded(token: token, decoded) {
                    execute(effects)  // supersedes a next page fetched with the old document's cursor
                    accepted = true
                }
            } catch {
                lifecycle.fetchFailed(token: token, PageLoadError(error))
            }
            publish()
            if accepted { reportArrivedDiagnostics() }
        }
    }

    private func fetchNextPage(_ request: PageRequest, token: Int) -> Task<Void, Never> {
        Task { [loader, decoder, willDecode] in
            var accepted = false
            do {
                let bytes = try await loader.load(request)
                let decoded = try await Self.decodeDetached(request.kind, willDecode) {
                    try decoder.decodeNextPage(bytes)
                }
                // The lifecycle appends to the document as it is now, not to a copy captured before the await.
                accepted = appendNextPage(token: token, decoded)
            } catch {
                lifecycle.nextPageFailed(token: token, PageLoadError(error))
            }
            publish()
            if accepted { reportArrivedDiagnostics() }
        }
    }

    /// Hands a decoded chunk to the lifecycle with the store's own references to the shown document and its
    /// findings let go first, so that copy-on-write appends the chunk in place: the cost of a chunk is the chunk,
    /// not the document (a reader still holding the old document gets a copy made, and keeps its value).
    ///
    /// The backing storage is cleared without notifying: ``publish()`` runs right after, on the main actor, and
    /// assigns (and notifies) what changed; what did not change is put back here, silently, as it was.
    private func appendNextPage(token: Int, _ decoded: Decoded<NextPage>) -> Bool {
        guard _state.loadedPage != nil, let sections = _page?.sections.count else {
            return lifecycle.nextPageSucceeded(token: token, decoded)
        }
        let pagination = _page?.pagination
        let findings = _diagnostics.count
        _page = nil
        _state = .loading
        _diagnostics = []
        let accepted = lifecycle.nextPageSucceeded(token: token, decoded)
        // A chunk only appends sections, sets the pagination and adds findings: equal counts mean unchanged.
        let document = lifecycle.page
        if document?.sections.count == sections, document?.pagination == pagination {
            _page = document
            _state = lifecycle.state
        }
        if lifecycle.diagnostics.count == findings { _diagnostics = lifecycle.diagnostics }
        return accepted
    }

    /// Runs `decode` in a detached task, off the main actor, after telling `willDecode`.
    private nonisolated static func decodeDetached<Value: Sendable>(
        _ kind: PageRequest.Kind, _ willDecode: (@Sendable (PageRequest.Kind) -> Void)?,
        _ decode: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        try await Task.detached {
            willDecode?(kind)
            return try decode()
        }.value
    }

    private func reportArrivedDiagnostics() {
        diagnosticsDidArrive?(lifecycle.arrivedDiagnostics)
    }

    /// Copies the lifecycle into the tracked properties, assigning only what changed so unchanged properties
    /// invalidate no reader.
    private func publish() {
        if _page != lifecycle.page { page = lifecycle.page }
        if _diagnostics != lifecycle.diagnostics { diagnostics = lifecycle.diagnostics }
        if _isLoadingMore != lifecycle.isLoadingMore { isLoadingMore = lifecycle.isLoadingMore }
        documentStatus.publish(lifecycle.documentStatus)
        paginationStatusStorage.publish(lifecycle.paginationStatus)
        if _state != lifecycle.state {
            state = lifecycle.state
            stateDidChange?(lifecycle.state)
        }
    }
}
