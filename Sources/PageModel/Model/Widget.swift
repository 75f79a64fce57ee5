/// One typed UI element. `content` is free JSON interpreted per `type` (see ``WidgetCatalog``).
///
/// Wire form: `{"id", "type", "content", "actions"?: {event: Action}, "children"?: [Widget]}`.
public struct Widget: Sendable, Hashable {
    /// How a client should show this widget; derived while decoding, never sent on the wire.
    public enum Rendering: Sendable, Hashable {
        /// The content satisfied the catalog (or the type is known and has no requirements).
        case content
        /// The content was invalid; show a placeholder. `code` is the diagnostic's code.
        case placeholder(code: String)
        /// The type is not in the catalog; the client's `UnknownWidgetPolicy` decides (placeholder or skip).
        case unknownType
    }

    /// Stable id: the backend's, else `type@codingPath`, de-duplicated with `#2`, `#3` (docs/contract.md).
    public var id: String
    public var type: String
    public var content: JSONValue
    /// Actions by event name (`tap`, `change`, …).
    public var actions: [String: Action]
    /// Nested widgets, for containers such as `accordion` and `carousel`.
    public var children: [Widget]
    public var rendering: Rendering
    /// True when the id was generated from the coding path rather than sent by the backend.
    public var isGeneratedID: Bool
    /// Client requirements and fallback (`minAppVersion`, `requires`, `fallback`); servers resolve them per client.
    public var compatibility: Compatibility

    public init(
        id: String, type: String, content: JSONValue = .object(JSONObject()), actions: [String: Action] = [:],
        children: [Widget] = [], rendering: Rendering = .content, isGeneratedID: Bool = false,
        compatibility: Compatibility = Compatibility()
    ) {
        self.id = id
        self.type = type
        self.content = content
        self.actions = actions
        self.children = children
        self.rendering = rendering
        self.isGeneratedID = isGeneratedID
        self.compatibility = compatibility
    }

    /// The number of widgets in this subtree, this one included.
    public var subtreeCount: Int { 1 + children.reduce(0) { $0 + $1.subtreeCount } }
}

/// Widget events with a meaning in the contract.
public enum WidgetEvent {
    public static let tap = "tap"
    public static let change = "change"
}
