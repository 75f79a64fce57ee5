/// Where one piece of ephemeral widget state lives: the widget's id plus a name the widget chooses.
public struct WidgetStateKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var widgetID: String
    /// The widget's own name for the value, e.g. `count` or `expanded`.
    public var key: String

    public init(widgetID: String, key: String) {
        self.widgetID = widgetID
        self.key = key
    }

    public static func < (lhs: WidgetStateKey, rhs: WidgetStateKey) -> Bool {
        (lhs.widgetID, lhs.key) < (rhs.widgetID, rhs.key)
    }

    public var description: String { "\(widgetID).\(key)" }
}
