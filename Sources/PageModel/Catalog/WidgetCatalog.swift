/// The widget types the contract knows, with the content fields each requires.
///
/// Used by the client's decoding (invalid content → placeholder) and by the server's lint alike; the JSON
/// Schema in `schema/` mirrors it and a test keeps the two in step.
public struct WidgetCatalog: Sendable {
    public private(set) var specs: [String: WidgetTypeSpec]

    public init(_ specs: [WidgetTypeSpec]) {
        self.specs = Dictionary(specs.map { ($0.type, $0) }, uniquingKeysWith: { _, last in last })
    }

    public subscript(type: String) -> WidgetTypeSpec? { specs[type] }

    /// The known type names, sorted.
    public var types: [String] { specs.keys.sorted() }

    /// Adds or replaces a type (for hosts with custom widgets).
    public mutating func register(_ spec: WidgetTypeSpec) {
        specs[spec.type] = spec
    }

    /// The catalog of the bundled sample app, which is also the default.
    public static let standard = WidgetCatalog([
        WidgetTypeSpec(
            "text", [.required("text", .string), .optional("style", .string)]),
        WidgetTypeSpec(
            "image", [.required("url", .string), .optional("alt", .string), .optional("aspectRatio", .number)],
            events: [WidgetEvent.tap]),
        WidgetTypeSpec(
            "button", [.required("title", .string), .optional("style", .string), .optional("enabled", .boolean)],
            events: [WidgetEvent.tap]),
        WidgetTypeSpec(
            "stepper",
            [
                .required("value", .integer), .optional("label", .string), .optional("min", .integer),
                .optional("max", .integer), .optional("step", .integer),
            ],
            events: [WidgetEvent.change]),
        WidgetTypeSpec(
            "accordion", [.required("title", .string), .optional("expanded", .boolean)], children: .required),
        WidgetTypeSpec("carousel", [.optional("title", .string)], children: .required, events: [WidgetEvent.tap]),
        WidgetTypeSpec(
            "banner",
            [
                .required("title", .string), .optional("subtitle", .string), .optional("imageURL", .string),
                .optional("style", .string),
            ],
            events: [WidgetEvent.tap]),
        WidgetTypeSpec(
            "list_row",
            [
                .required("title", .string), .optional("subtitle", .string), .optional("imageURL", .string),
                .optional("trailing", .string),
            ],
            events: [WidgetEvent.tap]),
        WidgetTypeSpec(
            "product_card",
            [
                .required("title", .string), .required("price", .string), .optional("imageURL", .string),
                .optional("badge", .string),
            ],
            events: [WidgetEvent.tap]),
        WidgetTypeSpec("key_value", [.required("label", .string), .required("value", .string)]),
        WidgetTypeSpec(
            "empty_state", [.required("title", .string), .optional("message", .string)], events: [WidgetEvent.tap]),
        WidgetTypeSpec("divider", []),
        WidgetTypeSpec("spacer", [.optional("height", .number)]),
    ])
}

/// One widget type: its content fields, whether it takes children, and the events it fires.
public struct WidgetTypeSpec: Sendable, Hashable {
    public enum Children: Sendable, Hashable {
        /// Children are an error (`unexpected_children`).
        case none
        /// A container: at least one child.
        case required
        /// Children allowed but not required.
        case optional
    }

    public var type: String
    public var fields: [ContentField]
    public var children: Children
    /// Events this type fires; an action on any other event is a `unsupported_event` warning.
    public var events: [String]

    public init(_ type: String, _ fields: [ContentField], children: Children = .none, events: [String] = []) {
        self.type = type
        self.fields = fields
        self.children = children
        self.events = events
    }
}

/// One content field of a widget type.
public struct ContentField: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case string
        case number
        /// A number with no fractional part.
        case integer
        case boolean
        case array
        case object

        func accepts(_ value: JSONValue) -> Bool {
            switch (self, value) {
            case (.string, .string), (.number, .number), (.boolean, .bool), (.array, .array), (.object, .object):
                true
            case (.integer, .number): value.intValue != nil
            default: false
            }
        }
    }

    public var name: String
    public var kind: Kind
    public var isRequired: Bool

    public static func required(_ name: String, _ kind: Kind) -> ContentField {
        ContentField(name: name, kind: kind, isRequired: true)
    }

    public static func optional(_ name: String, _ kind: Kind) -> ContentField {
        ContentField(name: name, kind: kind, isRequired: false)
    }
}

extension WidgetTypeSpec {
    /// Checks `content` against this type's fields. Returns the first problem as a diagnostic (an invalid widget
    /// becomes one placeholder, so one diagnostic is enough to explain it), or `nil` when the content is valid.
    public func check(content: JSONValue, at path: JSONPointer, widgetID: String) -> Diagnostic? {
        check(content: content, at: .pointer(path), widgetID: widgetID)
    }

    /// ``check(content:at:widgetID:)`` with the path built only for a problem (the decoder's hot path).
    func check(content: JSONValue, at path: LazyPointer, widgetID: String) -> Diagnostic? {
        guard case .object(let object) = content else {
            return .error(
                "invalid_content", path.pointer, widgetID: widgetID,
                "\(type) content must be an object, found \(content.typeName)")
        }
        for field in fields {
            guard let value = object[field.name], !value.isNull else {
                if field.isRequired {
                    return .error(
                        "invalid_content", path.pointer / field.name, widgetID: widgetID,
                        "\(type) requires content field \"\(field.name)\" (\(field.kind.rawValue))")
                }
                continue
            }
            if !field.kind.accepts(value) {
                return .error(
                    "invalid_content", path.pointer / field.name, widgetID: widgetID,
                    "\(type).\(field.name) must be \(field.kind.rawValue), found \(value.typeName)")
            }
        }
        return nil
    }
}
