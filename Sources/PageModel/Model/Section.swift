/// A titled group of widgets in the page body; the unit of pagination.
///
/// Wire form: `{"id", "title"?, "widgets": [Widget]}`.
public struct Section: Sendable, Hashable {
    /// Stable id: the backend's, else `section@codingPath`, de-duplicated with `#2`, `#3`.
    public var id: String
    public var title: String?
    public var widgets: [Widget]
    public var isGeneratedID: Bool
    /// Client requirements and fallback (`minAppVersion`, `requires`, `fallback`); servers resolve them per client.
    public var compatibility: Compatibility

    public init(
        id: String, title: String? = nil, widgets: [Widget] = [], isGeneratedID: Bool = false,
        compatibility: Compatibility = Compatibility()
    ) {
        self.id = id
        self.title = title
        self.widgets = widgets
        self.isGeneratedID = isGeneratedID
        self.compatibility = compatibility
    }
}
