/// Typed constructors for the standard catalog's widgets, for pages composed in Swift (page providers). The
/// required content fields are parameters, so the compiler checks what the catalog would otherwise report as
/// `invalid_content`; optional fields are omitted from the content when `nil`.
extension Widget {
    static func make(
        _ id: String, _ type: String, _ fields: [(String, JSONValue?)], actions: [String: Action] = [:],
        children: [Widget] = []
    ) -> Widget {
        let members = fields.compactMap { field in field.1.map { JSONObject.Member(key: field.0, value: $0) } }
        return Widget(id: id, type: type, content: .object(JSONObject(members)), actions: actions, children: children)
    }

    public static func text(id: String, _ text: String, style: String? = nil) -> Widget {
        make(id, "text", [("text", .string(text)), ("style", style.map(JSONValue.string))])
    }

    public static func image(
        id: String, url: String, alt: String? = nil, aspectRatio: Double? = nil, onTap: Action? = nil
    ) -> Widget {
        make(
            id, "image",
            [
                ("url", .string(url)), ("alt", alt.map(JSONValue.string)),
                ("aspectRatio", aspectRatio.map(JSONValue.number)),
            ],
            actions: onTap.map { [WidgetEvent.tap: $0] } ?? [:])
    }

    public static func button(
        id: String, title: String, style: String? = nil, enabled: Bool? = nil, onTap: Action? = nil
    ) -> Widget {
        make(
            id, "button",
            [
                ("title", .string(title)), ("style", style.map(JSONValue.string)),
                ("enabled", enabled.map(JSONValue.bool)),
            ],
            actions: onTap.map { [WidgetEvent.tap: $0] } ?? [:])
    }

    public static func stepper(
        id: String, value: Int, label: String? = nil, min: Int? = nil, max: Int? = nil, step: Int? = nil,
        onChange: Action? = nil
    ) -> Widget {
        make(
            id, "stepper",
            [
                ("value", .number(Double(value))), ("label", label.map(JSONValue.string)),
                ("min", min.map { .number(Double($0)) }), ("max", max.map { .number(Double($0)) }),
                ("step", step.map { .number(Double($0)) }),
            ],
            actions: onChange.map { [WidgetEvent.change: $0] } ?? [:])
    }

    public static func accordion(id: String, title: String, expanded: Bool? = nil, children: [Widget]) -> Widget {
        make(
            id, "accordion", [("title", .string(title)), ("expanded", expanded.map(JSONValue.bool))],
            children: children)
    }

    public static func carousel(id: String, title: String? = nil, children: [Widget]) -> Widget {
        make(id, "carousel", [("title", title.map(JSONValue.string))], children: children)
    }

    public static func banner(
        id: String, title: String, subtitle: String? = nil, imageURL: String? = nil, style: String? = nil,
        onTap: Action? = nil
    ) -> Widget {
        make(
            id, "banner",
            [
                ("title", .string(title)), ("subtitle", subtitle.map(JSONValue.string)),
                ("imageURL", imageURL.map(JSONValue.string)), ("style", style.map(JSONValue.string)),
            ],
            actions: onTap.map { [WidgetEvent.tap: $0] } ?? [:])
    }

    public static func listRow(
        id: String, title: String, subtitle: String? = nil, imageURL: String? = nil, trailing: String? = nil,
        onTap: Action? = nil
    ) -> Widget {
        make(
            id, "list_row",
            [
                ("title", .string(title)), ("subtitle", subtitle.map(JSONValue.string)),
                ("imageURL", imageURL.map(JSONValue.string)), ("trailing", trailing.map(JSONValue.string)),
            ],
            actions: onTap.map { [WidgetEvent.tap: $0] } ?? [:])
    }

    public static func productCard(
        id: String, title: String, price: String, imageURL: String? = nil, badge: String? = nil, onTap: Action? = nil
    ) -> Widget {
        make(
            id, "product_card",
            [
                ("title", .string(title)), ("price", .string(price)), ("imageURL", imageURL.map(JSONValue.string)),
                ("badge", badge.map(JSONValue.string)),
            ],
            actions: onTap.map { [WidgetEvent.tap: $0] } ?? [:])
    }

    public static func keyValue(id: String, label: String, value: String) -> Widget {
        make(id, "key_value", [("label", .string(label)), ("value", .string(value))])
    }

    public static func emptyState(id: String, title: String, message: String? = nil, onTap: Action? = nil) -> Widget {
        make(
            id, "empty_state", [("title", .string(title)), ("message", message.map(JSONValue.string))],
            actions: onTap.map { [WidgetEvent.tap: $0] } ?? [:])
    }

    public static func divider(id: String) -> Widget { make(id, "divider", []) }

    public static func spacer(id: String, height: Double? = nil) -> Widget {
        make(id, "spacer", [("height", height.map(JSONValue.number))])
    }

    /// This widget with a fallback for clients that cannot render it.
    public func fallback(_ fallback: Fallback) -> Widget {
        var copy = self
        copy.compatibility.fallback = fallback
        return copy
    }

    /// This widget shown only to clients that satisfy `requirements` (`"button@2"`, `"haptics"`).
    public func requiring(_ requirements: Requirement...) -> Widget {
        var copy = self
        copy.compatibility.requires += requirements
        return copy
    }

    /// This widget shown only from app `version` on (every platform).
    public func minAppVersion(_ version: AppVersion) -> Widget {
        var copy = self
        copy.compatibility.minAppVersion = .all(version)
        return copy
    }
}
