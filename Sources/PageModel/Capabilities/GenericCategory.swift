/// Generic widget types a `{"fallback": {"category": …}}` converts to, reusing the original content: the first
/// present string of a few well-known fields fills each field of the generic type. Actions on events the generic
/// type fires are kept; children are not.
public enum GenericCategory: String, Sendable, Hashable, CaseIterable {
    /// `text`: `text` ← text, title, label, message.
    case text
    /// `list_row`: `title` ← title, text, label; `subtitle` ← subtitle, message; `trailing` ← price, trailing,
    /// value; `imageURL` ← imageURL, url.
    case listRow = "list_row"
    /// `key_value`: `label` ← label, title, text; `value` ← value, price, subtitle, trailing.
    case keyValue = "key_value"
    /// `image`: `url` ← url, imageURL; `alt` ← alt, title.
    case image

    /// The generic widget for `widget`, or `nil` when a required field cannot be filled.
    public func convert(_ widget: Widget, catalog: WidgetCatalog = .standard) -> Widget? {
        let source = widget.content
        func first(_ keys: [String]) -> JSONValue? {
            for key in keys { if let value = source[key], value.stringValue != nil { return value } }
            return nil
        }
        var content = JSONObject()
        let fields: [(String, [String], Bool)]
        switch self {
        case .text:
            fields = [("text", ["text", "title", "label", "message"], true)]
        case .listRow:
            fields = [
                ("title", ["title", "text", "label"], true), ("subtitle", ["subtitle", "message"], false),
                ("imageURL", ["imageURL", "url"], false), ("trailing", ["price", "trailing", "value"], false),
            ]
        case .keyValue:
            fields = [
                ("label", ["label", "title", "text"], true),
                ("value", ["value", "price", "subtitle", "trailing"], true),
            ]
        case .image:
            fields = [("url", ["url", "imageURL"], true), ("alt", ["alt", "title"], false)]
        }
        for (name, keys, required) in fields {
            if let value = first(keys) {
                content[name] = value
            } else if required {
                return nil
            }
        }
        let events = catalog[rawValue]?.events ?? []
        return Widget(
            id: widget.id, type: rawValue, content: .object(content),
            actions: widget.actions.filter { events.contains($0.key) }, isGeneratedID: widget.isGeneratedID)
    }
}
