import HTTPCore
import PageModel

/// The values of one request that conditions test and templates insert. Built per request; a page load has no
/// action request (its `request.value`, `request.widgetID`, … are absent).
struct RequestFacts: Sendable {
    var action: ActionRequest?
    /// Query parameters (the last value of a repeated name), less those the server reserves (`__scenario`).
    var query: [String: String]
    var headers: HTTPFields
    var sessionID: String?
    /// The scenario in effect for the page (mock mode: `X-Flow-Scenario`, `?__scenario=`, the session's choice).
    var scenario: String?

    /// The value `name` names, or `nil` when the request has none.
    func value(_ name: RequestValueName) -> JSONValue? {
        switch name {
        case .value: return action?.value
        case .widgetID: return action.map { .string($0.widgetID) }
        case .event: return action.map { .string($0.event) }
        case .pageID: return action.map { .string($0.pageID) }
        case .payload(let path):
            var current = action?.payload
            for segment in path {
                switch current {
                case .object(let object): current = object[segment]
                case .array(let array):
                    guard let index = Int(segment), array.indices.contains(index) else { return nil }
                    current = array[index]
                default: return nil
                }
            }
            return current
        case .query(let parameter): return query[parameter].map { .string($0) }
        case .header(let field): return headers[field].map { .string($0) }
        case .sessionID: return sessionID.map { .string($0) }
        case .sessionScenario: return scenario.map { .string($0) }
        }
    }
}

extension JSONValue {
    /// The value as template text: strings as they are, integral numbers without a fraction, JSON otherwise.
    var templateText: String {
        switch self {
        case .string(let text): return text
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return ""
        case .array, .object: return String(decoding: JSONWriter().write(self), as: UTF8.self)
        }
    }
}
