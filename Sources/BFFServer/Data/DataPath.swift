import Foundation
import PageModel

/// A name in a page's data template (pages/README.md § Pages from data): a variable an `$each` bound (`order`,
/// `group`) or `data.<document>`, then a dotted path of object keys and array indices (`order.lines.0.sku`).
/// `<array>.count` is the number of items.
struct DataPath: Sendable, Hashable, CustomStringConvertible {
    /// The variable, or `data`.
    var root: String
    var path: [String]

    /// Parses `text` against the variables in scope.
    /// - Throws: `unknown_placeholder` for a root that is neither a variable in scope nor `data`, with the closest.
    init(parsing text: String, variables: some Collection<String>) throws(MatchingError) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
            .map(String.init)
        guard let first = parts.first, !parts.contains(where: \.isEmpty) else {
            throw MatchingError("unknown_placeholder", "\"\(text)\" has an empty path segment")
        }
        let roots = Array(variables) + ["data"]
        guard roots.contains(first) else {
            let hint = NearMiss.closest(to: first, among: roots).map { " (did you mean \($0)?)" } ?? ""
            throw MatchingError(
                "unknown_placeholder",
                "\"\(text)\" names no variable in scope\(hint); in scope: \(roots.joined(separator: ", "))")
        }
        root = first
        path = Array(parts.dropFirst())
    }

    init(root: String, path: [String]) {
        self.root = root
        self.path = path
    }

    var description: String { ([root] + path).joined(separator: ".") }

    /// True when `text` is a name this template fills: its root is a variable in scope or `data` (other `{{…}}`
    /// text, such as request values, is served as written).
    static func isTemplated(_ text: String, variables: some Collection<String>) -> Bool {
        let root = text.trimmingCharacters(in: .whitespaces).prefix { $0 != "." }
        return root == "data" || variables.contains(String(root))
    }

    /// The value named in `scope` (variable → value; `data` → every data document), or `nil` when absent.
    func resolve(in scope: [String: JSONValue]) -> JSONValue? {
        resolveWithParent(in: scope).value
    }

    /// The value and the object it was looked up in (for "did you mean" on a missing member).
    func resolveWithParent(in scope: [String: JSONValue]) -> (value: JSONValue?, parent: JSONObject?) {
        var current = scope[root]
        var parent: JSONObject?
        for segment in path {
            switch current {
            case .object(let object):
                parent = object
                current = object[segment]
            case .array(let items):
                parent = nil
                if segment == "count" {
                    current = .number(Double(items.count))
                } else if let index = Int(segment), items.indices.contains(index) {
                    current = items[index]
                } else {
                    return (nil, nil)
                }
            default:
                return (nil, nil)
            }
        }
        return (current, parent)
    }
}

/// A data template's `when` / `$if`: every named value must satisfy its matcher, the same matchers as a request
/// condition (``RequestCondition``): a literal, or `equals`, `in`, `glob`, `present`, `gt`, `gte`, `lt`, `lte`.
struct DataCondition: Sendable {
    var tests: [(name: DataPath, matcher: RequestCondition.Matcher)]

    init(parsing value: JSONValue, variables: some Collection<String>) throws(MatchingError) {
        guard case .object(let object) = value else {
            throw MatchingError("invalid_condition", "a condition is an object of names and matchers")
        }
        var tests: [(DataPath, RequestCondition.Matcher)] = []
        for member in object.members {
            let path = JSONPointer.root / member.key
            let name: DataPath
            do {
                name = try DataPath(parsing: member.key, variables: variables)
            } catch {
                throw MatchingError(error.code, error.message, at: path)
            }
            tests += try RequestCondition.matchers(member.value, at: path).map { (name, $0) }
        }
        self.tests = tests
    }

    func matches(_ scope: [String: JSONValue]) -> Bool {
        tests.allSatisfy { $0.matcher.matches($0.name.resolve(in: scope)) }
    }
}
