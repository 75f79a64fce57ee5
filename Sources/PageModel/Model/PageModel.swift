/// A decoded page: header, body sections and footer of typed widgets, plus pagination.
///
/// Wire form: `{"id", "title"?, "header"?: [Widget], "sections": [Section], "footer"?: [Widget],
/// "pagination"?: Pagination}`. Immutable once decoded; change it through ``applying(_:)``.
public struct PageModel: Sendable, Hashable {
    public var id: String
    public var title: String?
    public var header: [Widget]
    public var sections: [Section]
    public var footer: [Widget]
    public var pagination: Pagination?

    public init(
        id: String, title: String? = nil, header: [Widget] = [], sections: [Section] = [], footer: [Widget] = [],
        pagination: Pagination? = nil
    ) {
        self.id = id
        self.title = title
        self.header = header
        self.sections = sections
        self.footer = footer
        self.pagination = pagination
    }

    /// Top-level widgets (header, then each section's, then footer), the scope of page-wide id uniqueness.
    public var topLevelWidgetCount: Int {
        header.count + footer.count + sections.reduce(0) { $0 + $1.widgets.count }
    }

    /// True when header, sections and footer hold no widget at all: the client shows `.empty`.
    public var isEmpty: Bool { topLevelWidgetCount == 0 }

    /// True when more sections can be fetched.
    public var hasMore: Bool { pagination?.hasMore ?? false }
}
