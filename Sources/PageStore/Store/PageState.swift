import PageModel

/// What a ``PageStore`` shows: the seed's four states.
public enum PageState: Sendable, Hashable {
    /// First paint, and `retry()`; no document is shown.
    case loading
    /// A document with at least one widget across header, sections and footer.
    case loaded(PageModel)
    /// A successful decode with no widgets.
    case empty
    /// A loader or envelope decode error. Content problems inside widgets never land here.
    case failed(message: String)

    /// The document when `.loaded`, else `nil`: seed 001's "page as a convenience when state is .loaded".
    /// ``PageStore/page`` is the total read (the last accepted document, also in `.loading` and `.failed`); use
    /// this where the lifecycle matters, e.g. to draw the pagination sentinel only when ``PageStore/loadNextPage()``
    /// would fetch (docs/pagestore.md, "`page`: the decision").
    public var loadedPage: PageModel? {
        if case .loaded(let page) = self { return page }
        return nil
    }

    /// The state an accepted document puts the store in: `.empty` without widgets, else `.loaded`.
    public init(accepting page: PageModel) {
        self = page.isEmpty ? .empty : .loaded(page)
    }
}
