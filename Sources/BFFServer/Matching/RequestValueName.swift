import Foundation
import PageModel

/// A value of the request that `when` conditions test and `{{…}}` placeholders insert (pages/README.md § Answers
/// that depend on the request): `request.value`, `request.widgetID`, `request.event`, `request.pageID`,
/// `request.payload[.<path>]`, `request.query.<name>`, `request.header.<name>`, `session.id`, `session.scenario`.
enum RequestValueName: Sendable, Hashable, CustomStringConvertible {
    case value
    case widgetID
    case event
    case pageID
    /// The payload, or the member at a dotted path (`items.0.id`: object keys and array indices).
    case payload([String])
    case query(String)
    /// Matched case-insensitively.
    case header(String)
    case sessionID
    case sessionScenario

    /// The names without a parameter, for "did you mean" hints.
    static let fixedNames = [
        "request.value", "request.widgetID", "request.event", "request.pageID", "request.payload",
        "session.id", "session.scenario",
    ]

    /// Parses a name; the error says what is wrong and, when close, which name was meant.
    init(parsing text: String) throws(MatchingError) {
        let name = text.trimmingCharacters(in: .whitespaces)
        switch name {
        case "request.value": self = .value
        case "request.widgetID": self = .widgetID
        case "request.event": self = .event
        case "request.pageID": self = .pageID
        case "request.payload": self = .payload([])
        case "session.id": self = .sessionID
        case "session.scenario": self = .sessionScenario
        default:
            if let rest = name.dropping(prefix: "request.payload.") {
                let path = rest.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard !path.contains(where: \.isEmpty) else {
                    throw MatchingError("unknown_placeholder", "\"\(name)\" has an empty payload path segment")
                }
                self = .payload(path)
            } else if let rest = name.dropping(prefix: "request.query."), !rest.isEmpty {
                self = .query(rest)
            } else if let rest = name.dropping(prefix: "request.header."), !rest.isEmpty,
                rest.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") })
            {
                self = .header(rest)
            } else {
                let candidates = Self.fixedNames + ["request.query.<name>", "request.header.<name>"]
                let hint = Self.suggestion(for: name).map { " (did you mean \($0)?)" } ?? ""
                throw MatchingError(
                    "unknown_placeholder",
                    "unknown request value \"\(name)\"\(hint); known: \(candidates.joined(separator: ", ")), "
                        + "request.payload.<path>")
            }
        }
    }

    /// The name meant by a misspelt one: a close fixed name, or a misspelt root with its path kept
    /// (`requst.payload.orderID` → `request.payload.orderID`).
    static func suggestion(for name: String) -> String? {
        if let fixed = NearMiss.closest(to: name, among: fixedNames) { return fixed }
        let parts = name.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[2].isEmpty else { return nil }
        let roots = ["request.payload", "request.query", "request.header"]
        return NearMiss.closest(to: "\(parts[0]).\(parts[1])", among: roots).map { "\($0).\(parts[2])" }
    }

    var description: String {
        switch self {
        case .value: "request.value"
        case .widgetID: "request.widgetID"
        case .event: "request.event"
        case .pageID: "request.pageID"
        case .payload(let path): (["request.payload"] + path).joined(separator: ".")
        case .query(let name): "request.query.\(name)"
        case .header(let name): "request.header.\(name)"
        case .sessionID: "session.id"
        case .sessionScenario: "session.scenario"
        }
    }

    /// Where the request carries this value: a JSON Pointer into the action request body (`/value`,
    /// `/payload/productID`), or `nil` for values outside the body (query, headers, session, scenario).
    var bodyPointer: JSONPointer? {
        switch self {
        case .value: JSONPointer.root / "value"
        case .widgetID: JSONPointer.root / "widgetID"
        case .event: JSONPointer.root / "event"
        case .pageID: JSONPointer.root / "pageID"
        case .payload(let path): path.reduce(JSONPointer.root / "payload") { $0 / $1 }
        case .query, .header, .sessionID, .sessionScenario: nil
        }
    }

    /// The request member in words, for a problem's detail: `/value`, `the query parameter promo`, …
    var requestMember: String {
        if let pointer = bodyPointer { return pointer.string }
        switch self {
        case .query(let name): return "the query parameter \(name)"
        case .header(let name): return "the header \(name)"
        case .sessionID: return "the session (X-Flow-Session or the flow_session cookie)"
        default: return "the scenario"
        }
    }

    /// True for the names a page variant may test: only query parameters, because a first load's representation
    /// is cached by its parameters.
    var isQuery: Bool {
        if case .query = self { return true }
        return false
    }
}

/// A problem with a `when` condition or a template, found when the page file loads.
struct MatchingError: Error, Sendable {
    var code: String
    var message: String
    /// Where inside the value being parsed (appended to the value's own path).
    var path: JSONPointer = .root

    init(_ code: String, _ message: String, at path: JSONPointer = .root) {
        self.code = code
        self.message = message
        self.path = path
    }
}

extension String {
    /// The rest after `prefix`, or `nil` when the string does not start with it.
    func dropping(prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
