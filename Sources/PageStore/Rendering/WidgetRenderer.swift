import PageModel

/// Draws one widget as the single line of a headless outline; the registry adds indentation and children.
public struct WidgetRenderer: Sendable {
    /// Returns the widget's line, without indentation.
    public var line: @MainActor @Sendable (_ widget: Widget, _ context: WidgetContext) -> String

    public init(line: @escaping @MainActor @Sendable (_ widget: Widget, _ context: WidgetContext) -> String) {
        self.line = line
    }

    /// The built-in renderer: `type #id`, then the content's scalar fields in source order (`key=value`,
    /// strings quoted, objects and arrays abbreviated), then the widget's ephemeral state as `[state k=v]`.
    public static let outline = WidgetRenderer { widget, context in
        var parts = ["\(widget.type) #\(widget.id)"]
        if case .object(let content) = widget.content {
            for member in content.members { parts.append("\(member.key)=\(summary(member.value))") }
        }
        let entries = context.state.entries(widgetID: context.widgetID)
        if !entries.isEmpty {
            parts.append("[state " + entries.map { "\($0.key)=\(stateSummary($0.value))" }.joined(separator: " ") + "]")
        }
        return parts.joined(separator: " ")
    }

    /// One content value in an outline line: scalars as JSON (strings cut at 40 characters), `{…}` and `[n]`.
    static func summary(_ value: JSONValue) -> String {
        switch value {
        case .string(let string) where string.count > 40: JSONValue.string(String(string.prefix(39)) + "…").description
        case .object: "{…}"
        case .array(let array): "[\(array.count)]"
        default: value.description
        }
    }

    static func stateSummary(_ value: any Hashable & Sendable) -> String {
        if let string = value as? String { return JSONValue.string(string).description }
        return String(describing: value)
    }
}
