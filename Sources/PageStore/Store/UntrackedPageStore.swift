import PageModel

/// The properties of a ``PageStore`` read without registering Observation access; the root of
/// ``PageStore/peek(_:)`` key paths (`store.peek(\.page)`, `store.peek(\.status.isLoading)`).
@MainActor
public struct UntrackedPageStore {
    let store: PageStore

    public var state: PageState { store.untrackedState }
    public var page: PageModel? { store.untrackedPage }
    public var isLoadingMore: Bool { store.untrackedIsLoadingMore }
    public var diagnostics: [Diagnostic] { store.untrackedDiagnostics }
    public var status: PageStatus { PageStatus(storage: store.documentStatusStorage, isTracked: false, store: store) }
    public var paginationStatus: PageStatus {
        PageStatus(storage: store.paginationStatusRecord, isTracked: false, store: store)
    }
}
