import Foundation
import PageModel

/// A parsed `when` object: every listed request value must satisfy its matcher (an empty `when` matches every
/// request). Parsed when the page file loads, so a bad condition is a load-time error with its JSON path.
///
///     "when": { "request.value": 0,
///               "request.widgetID": { "glob": "qty.*" },
///               "request.payload.productID": { "in": ["p-1042", "p-3307"] },
///               "request.header.X-Tier": { "present": true } }
struct RequestCondition: Sendable {
    /// One test of one request value.
    enum Matcher: Sendable, Hashable {
        /// Equal JSON; a number also equals a string that parses to it (query parameters and headers are text).
        case equals(JSONValue)
        case oneOf([JSONValue])
        /// `*` matches any run of characters, on the value's text.
        case glob(String)
        case present(Bool)
        case greater(Double, orEqual: Bool)
        case less(Double, orEqual: Bool)

        func matches(_ actual: JSONValue?) -> Bool {
            switch self {
            case .present(let expected): return (actual != nil && actual != .null) == expected
            case .equals(let expected):
                guard let actual else { return expected == .null }
                return Self.equal(actual, expected)
            case .oneOf(let candidates):
                guard let actual else { return false }
                return candidates.contains { Self.equal(actual, $0) }
            case .glob(let pattern):
                guard let actual, actual != .null else { return false }
                return FaultRule.glob(Array(pattern.utf8)[...], Array(actual.templateText.utf8)[...])
            case .greater(let bound, let orEqual):
                guard let number = actual.flatMap(Self.number) else { return false }
                return orEqual ? number >= bound : number > bound
            case .less(let bound, let orEqual):
                guard let number = actual.flatMap(Self.number) else { return false }
                return orEqual ? number <= bound : number < bound
            }
        }

        static func number(_ value: JSONValue) -> Double? {
            switch value {
            case .number(let number): number
            case .string(let text): Double(text.trimmingCharacters(in: .whitespaces))
            default: nil
            }
        }

        static func equal(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
            switch (actual, expected) {
            case (.string(let text), .number(let number)): return Double(text) == number
            case (.number, .string(let text)): return actual.templateText == text
            case (.string(let text), .bool(let flag)): return text == (flag ? "true" : "false")
            default: return actual == expected
            }
        }
    }

    static let operators = ["equals", "in", "glob", "present", "gt", "gte", "lt", "lte"]

    var tests: [(name: RequestValueName, matcher: Matcher)]

    /// True when every test holds for `facts`.
    func matches(_ facts: RequestFacts) -> Bool {
        tests.allSatisfy { $0.matcher.matches(facts.value($0.name)) }
    }

    /// Parses a `when` value.
    /// - Parameter allowed: the request values this condition may test (a page variant: query parameters only).
    /// - Throws: ``MatchingError`` with the path inside the `when` object.
    init(parsing value: JSONValue, allowed: (RequestValueName) -> Bool = { _ in true }) throws(MatchingError) {
        guard case .object(let object) = value else {
            throw MatchingError("invalid_condition", "when is an object of request values and matchers")
        }
        var tests: [(RequestValueName, Matcher)] = []
        for member in object.members {
            let path = JSONPointer.root / member.key
            let name: RequestValueName
            do {
                name = try RequestValueName(parsing: member.key)
            } catch {
                throw MatchingError("unknown_condition", error.message, at: path)
            }
            guard allowed(name) else {
                throw MatchingError(
                    "unsupported_condition",
                    "page variants match query parameters only (request.query.<name>), not \(name)", at: path)
            }
            tests += try Self.matchers(member.value, at: path).map { (name, $0) }
        }
        self.tests = tests
    }

    /// The matchers of one tested value: a literal is `equals`, an object its operators (`{"gt": 10}`).
    /// - Throws: for an empty object or an unknown or malformed operator, at `path`.
    static func matchers(_ value: JSONValue, at path: JSONPointer) throws(MatchingError) -> [Matcher] {
        guard case .object(let operators) = value else { return [.equals(value)] }
        guard !operators.isEmpty else {
            throw MatchingError(
                "invalid_condition", "an empty matcher; use {\"equals\": {}} to compare with an empty object",
                at: path)
        }
        var matchers: [Matcher] = []
        for item in operators.members { matchers.append(try matcher(item.key, item.value, at: path / item.key)) }
        return matchers
    }

    static func matcher(_ key: String, _ value: JSONValue, at path: JSONPointer) throws(MatchingError)
        -> Matcher
    {
        switch key {
        case "equals": return .equals(value)
        case "in":
            guard case .array(let candidates) = value else {
                throw MatchingError("invalid_condition", "in takes an array of values", at: path)
            }
            return .oneOf(candidates)
        case "glob":
            guard case .string(let pattern) = value else {
                throw MatchingError("invalid_condition", "glob takes a string pattern (* matches any text)", at: path)
            }
            return .glob(pattern)
        case "present":
            guard case .bool(let flag) = value else {
                throw MatchingError("invalid_condition", "present takes true or false", at: path)
            }
            return .present(flag)
        case "gt", "gte", "lt", "lte":
            guard case .number(let bound) = value else {
                throw MatchingError("invalid_condition", "\(key) takes a number", at: path)
            }
            return key.hasPrefix("g")
                ? .greater(bound, orEqual: key == "gte") : .less(bound, orEqual: key == "lte")
        default:
            let hint = NearMiss.closest(to: key, among: operators).map { " (did you mean \($0)?)" } ?? ""
            throw MatchingError(
                "unknown_operator",
                "unknown matcher \"\(key)\"\(hint); matchers: \(operators.joined(separator: ", ")); "
                    + "wrap an object to compare in {\"equals\": …}", at: path)
        }
    }
}
