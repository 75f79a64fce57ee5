/// The authoring rule for types in page files (`docs/check.md`): a widget, action or effect type must be in the
/// catalog, be registered as a custom type, or start with the extension prefix `x-`. Anything else is a typo and
/// an `error` naming the closest known type.
///
/// Only authoring is strict: the decoder stays lenient (an unknown type is a warning and the client keeps or
/// skips the widget per its `UnknownWidgetPolicy`), so an app released against an older catalog still renders
/// newer pages.
public struct AuthoringTypes: Sendable, Hashable {
    /// Types starting with this prefix (and at least one more character) are custom and always accepted.
    public static let extensionPrefix = "x-"

    /// Widget types outside the catalog that the apps render (`pages.customWidgetTypes`).
    public var customWidgetTypes: Set<String>
    /// Action and effect types outside the built-ins that the apps handle (`pages.customActionTypes`).
    public var customActionTypes: Set<String>

    public init(customWidgetTypes: some Sequence<String> = [], customActionTypes: some Sequence<String> = []) {
        self.customWidgetTypes = Set(customWidgetTypes)
        self.customActionTypes = Set(customActionTypes)
    }

    /// True when `type` is a registered custom widget type or carries the extension prefix.
    public func isCustom(widgetType type: String) -> Bool {
        Self.isExtension(type) || customWidgetTypes.contains(type)
    }

    /// True when `type` is a registered custom action type or carries the extension prefix.
    public func isCustom(actionType type: String) -> Bool {
        Self.isExtension(type) || customActionTypes.contains(type)
    }

    /// `x-` followed by at least one character (the schema's `CustomWidgetType` pattern `^x-.`).
    static func isExtension(_ type: String) -> Bool {
        type.count > extensionPrefix.count && type.hasPrefix(extensionPrefix)
    }

    /// The diagnostic codes ``review(_:in:catalog:)`` looks at; it returns every other diagnostic unchanged.
    public static let reviewedCodes: Set<String> = ["unknown_widget_type", "unknown_action_type"]

    /// The decoder's diagnostics of `document` with this rule applied: an `unknown_widget_type` or
    /// `unknown_action_type` warning becomes an error with a "did you mean" hint, or disappears when the type is
    /// custom. The hint names the closest catalog or registered custom type. Paths are looked up in `document`, so
    /// they must point into it.
    public func review(_ diagnostics: [Diagnostic], in document: JSONValue, catalog: WidgetCatalog) -> [Diagnostic] {
        diagnostics.compactMap { diagnostic in
            switch diagnostic.code {
            case "unknown_widget_type":
                let type = document.value(at: diagnostic.path)?.stringValue ?? ""
                guard !isCustom(widgetType: type) else { return nil }
                return Self.typo(
                    diagnostic, kind: "widget", type: type, known: catalog.types + customWidgetTypes.sorted())
            case "unknown_action_type":
                let type = document.value(at: diagnostic.path)?.stringValue ?? ""
                guard !isCustom(actionType: type) else { return nil }
                let kind = diagnostic.path.tokens.dropLast(2).last == "effects" ? "effect" : "action"
                return Self.typo(diagnostic, kind: kind, type: type, known: ActionType.all + customActionTypes.sorted())
            default:
                return diagnostic
            }
        }
    }

    static func typo(_ diagnostic: Diagnostic, kind: String, type: String, known: [String]) -> Diagnostic {
        var error = diagnostic
        error.severity = .error
        if let closest = NearMiss.closest(to: type, among: known) {
            error.message = "unknown \(kind) type \"\(type)\" (did you mean \(closest)?)"
        } else {
            error.message =
                "unknown \(kind) type \"\(type)\"; known: \(known.joined(separator: ", ")); a custom type starts with "
                + "\"\(extensionPrefix)\" or is registered in the configuration (docs/check.md)"
        }
        return error
    }
}
