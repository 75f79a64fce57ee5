/// One thing the server changed or removed so that a client can show a page: listed in the `degradations`
/// array of `page` and `nextPage` envelopes (docs/contract.md § 17) for tests and dashboards.
///
/// Wire form: `{"code", "sectionID"?, "widgetID"?, "type"?, "replacement"?, "reason"}`.
public struct Degradation: Sendable, Hashable, CustomStringConvertible {
    /// Stable codes (``Code``).
    public var code: String
    public var sectionID: String?
    public var widgetID: String?
    /// The type of the widget that was replaced or dropped.
    public var type: String?
    /// The type (widget) or id (section) shown instead.
    public var replacement: String?
    /// Why, for humans.
    public var reason: String

    public init(
        code: String, sectionID: String? = nil, widgetID: String? = nil, type: String? = nil,
        replacement: String? = nil, reason: String
    ) {
        self.code = code
        self.sectionID = sectionID
        self.widgetID = widgetID
        self.type = type
        self.replacement = replacement
        self.reason = reason
    }

    /// The codes the server uses.
    public enum Code {
        /// A widget's `fallback.widget` is shown instead.
        public static let widgetReplaced = "widget_replaced"
        /// A widget was converted to its `fallback.category`.
        public static let widgetGeneralized = "widget_generalized"
        /// A widget was removed (no usable fallback).
        public static let widgetDropped = "widget_dropped"
        /// A section's `fallback.section` is shown instead.
        public static let sectionReplaced = "section_replaced"
        /// A section was removed (its own requirements, or every widget in it was dropped).
        public static let sectionDropped = "section_dropped"
        /// A page provider served a section's documented fallback because an upstream failed.
        public static let upstreamFallback = "upstream_fallback"
    }

    /// The reason of a `section_dropped` that follows from its widgets (each listed as dropped before it), not
    /// from the section's own requirements.
    public static let emptiedSectionReason = "every widget in the section was dropped"

    public var json: JSONValue {
        var object = JSONObject()
        object["code"] = .string(code)
        if let sectionID { object["sectionID"] = .string(sectionID) }
        if let widgetID { object["widgetID"] = .string(widgetID) }
        if let type { object["type"] = .string(type) }
        if let replacement { object["replacement"] = .string(replacement) }
        object["reason"] = .string(reason)
        return .object(object)
    }

    /// Reads one entry; `nil` when `code` or `reason` is missing.
    public init?(json: JSONValue) {
        guard let code = json["code"]?.stringValue, let reason = json["reason"]?.stringValue else { return nil }
        self.init(
            code: code, sectionID: json["sectionID"]?.stringValue, widgetID: json["widgetID"]?.stringValue,
            type: json["type"]?.stringValue, replacement: json["replacement"]?.stringValue, reason: reason)
    }

    /// The `degradations` of a response body (an envelope), `[]` when absent or unreadable.
    public static func list(inEnvelope bytes: some Collection<UInt8>) -> [Degradation] {
        guard let root = try? JSONParser().parse(bytes), let entries = root["degradations"]?.arrayValue else {
            return []
        }
        return entries.compactMap(Degradation.init(json:))
    }

    /// `code sectionID/widgetID (type → replacement): reason`.
    public var description: String {
        let target = [sectionID, widgetID].compactMap { $0 }.joined(separator: "/")
        let change = type.map { " (\($0)\(replacement.map { " → \($0)" } ?? ""))" } ?? ""
        return "\(code) \(target)\(change): \(reason)"
    }
}
