import PageModel

/// The opt-in status lens of a ``PageStore`` request channel (seed 000: "uncertainty is opt-in").
///
/// Seed 000 names its fields: `kind`, `value`, `hasSucceeded`, `error`, `isLoading`. Creating the lens reads
/// nothing; each field is its own tracked read, so a view that only shows a spinner (`isLoading`) is not
/// invalidated when `value`, `error` or `hasSucceeded` change:
///
/// ```swift
/// let status = store.status
/// if status.isLoading { showSpinner() }
/// ```
///
/// A lens obtained through ``PageStore/peek(_:)`` reads the same fields without registering anything.
@MainActor
public struct PageStatus {
    let storage: RequestStatusStorage
    let isTracked: Bool
    /// The store whose accepted document ``value`` reads (not copied into the lens).
    let store: PageStore

    /// The last accepted document — the channel's accepted value, the same as the plain read ``PageStore/page``
    /// and read through to it, so a pagination append is still applied in place and held once. Its own tracked
    /// read: a view showing `value` is invalidated when a document is accepted, not when `isLoading` or `error`
    /// flicker; `nil` before the first success.
    public var value: PageModel? { isTracked ? store.page : store.untrackedPage }

    /// The kind of the latest request on this channel: `.initial` or `.refresh` for ``PageStore/status``,
    /// `.nextPage` for ``PageStore/paginationStatus``; `nil` before the first.
    public var kind: PageRequest.Kind? { isTracked ? storage.kind : storage.untracked.kind }
    /// True while the latest request is in flight.
    public var isLoading: Bool { isTracked ? storage.isLoading : storage.untracked.isLoading }
    /// Why the latest request failed, `nil` while loading or after a success.
    public var error: PageLoadError? { isTracked ? storage.error : storage.untracked.error }
    /// True once a request on this channel has been accepted.
    public var hasSucceeded: Bool { isTracked ? storage.hasSucceeded : storage.untracked.hasSucceeded }
}
