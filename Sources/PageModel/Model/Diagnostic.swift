/// One finding about a document: a content problem the decoder recovered from, or a lint rule's verdict.
///
/// The same shape everywhere — server lint, `flow-bff check`, client-side decoding, dev-mode responses:
/// `{"severity", "code", "path", "widgetID"?, "message"}` with `path` a JSON Pointer into the decoded body.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable, Comparable {
        case info
        case warning
        case error

        private var rank: Int {
            switch self {
            case .info: 0
            case .warning: 1
            case .error: 2
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    /// Stable machine code, e.g. `invalid_content`; the list is in `docs/contract.md`.
    public var code: String
    /// JSON Pointer to the offending value.
    public var path: JSONPointer
    /// The id of the widget concerned, when there is one.
    public var widgetID: String?
    public var message: String

    public init(severity: Severity, code: String, path: JSONPointer, widgetID: String? = nil, message: String) {
        self.severity = severity
        self.code = code
        self.path = path
        self.widgetID = widgetID
        self.message = message
    }

    public static func error(_ code: String, _ path: JSONPointer, widgetID: String? = nil, _ message: String)
        -> Diagnostic
    {
        Diagnostic(severity: .error, code: code, path: path, widgetID: widgetID, message: message)
    }

    public static func warning(_ code: String, _ path: JSONPointer, widgetID: String? = nil, _ message: String)
        -> Diagnostic
    {
        Diagnostic(severity: .warning, code: code, path: path, widgetID: widgetID, message: message)
    }

    public static func info(_ code: String, _ path: JSONPointer, widgetID: String? = nil, _ message: String)
        -> Diagnostic
    {
        Diagnostic(severity: .info, code: code, path: path, widgetID: widgetID, message: message)
    }

    /// `path: severity: code: message`, the form `flow-bff check` prints after the file name.
    public var description: String {
        "\(path.string.isEmpty ? "/" : path.string): \(severity.rawValue): \(code): \(message)"
    }

    public var json: JSONValue {
        var object = JSONObject()
        object["severity"] = .string(severity.rawValue)
        object["code"] = .string(code)
        object["path"] = .string(path.string)
        if let widgetID { object["widgetID"] = .string(widgetID) }
        object["message"] = .string(message)
        return .object(object)
    }
}

extension JSONPointer: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(string: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(string)
    }
}

extension Array where Element == Diagnostic {
    /// True when any diagnostic is an error.
    public var containsErrors: Bool { contains { $0.severity == .error } }
}
