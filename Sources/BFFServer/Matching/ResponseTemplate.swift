import Foundation
import PageModel

/// A JSON value whose strings may hold `{{…}}` placeholders filled from the request (pages/README.md §
/// Templating). Parsed when the page file loads: an unknown placeholder or an unclosed `{{` is a load-time
/// error with the string's JSON path.
///
/// - A string that is exactly one placeholder takes the value's JSON type (`"{{request.value}}"` → `3`);
///   `{{request.value | text}}` keeps it a string (`"3"`).
/// - Inside other text a value is inserted as text: strings as they are, integral numbers without a fraction,
///   objects and arrays as JSON. An absent value inserts nothing (`""` as a whole value).
/// - `\{{` is a literal `{{` (in a JSON file: `"\\{{"`). Inserted values are never expanded again.
struct ResponseTemplate: Sendable {
    indirect enum Node: Sendable {
        case fixed(JSONValue)
        case text([Segment])
        case array([Node])
        case object([(key: String, node: Node)])
    }

    enum Segment: Sendable, Hashable {
        case literal(String)
        case placeholder(RequestValueName, asText: Bool)
    }

    /// One string that holds placeholders: where it is (from the template's root) and what it inserts.
    struct TemplatedString: Sendable {
        var path: JSONPointer
        var names: [RequestValueName]
    }

    let root: Node
    /// The strings that hold placeholders, in document order.
    let templatedStrings: [TemplatedString]
    /// JSON paths (from the template's root) of the strings that hold placeholders.
    var templatedPaths: [JSONPointer] { templatedStrings.map(\.path) }
    /// The widget types a filled answer is checked against (the catalog's).
    var widgets: WidgetCatalog = .standard

    /// `nil` when `value` holds no placeholder (a fixed answer) or has errors.
    /// - Parameter errors: receives every template error in `value`, each with its path from `value`'s root.
    static func parse(_ value: JSONValue, errors: inout [MatchingError]) -> ResponseTemplate? {
        var strings: [TemplatedString] = []
        let before = errors.count
        let root = node(value, at: .root, strings: &strings, errors: &errors)
        guard errors.count == before else { return nil }
        return strings.isEmpty ? nil : ResponseTemplate(root: root, templatedStrings: strings)
    }

    /// The request values inserted at or around `path` of a filled answer: those of every templated string that
    /// `path` is, or lies inside (a placeholder that filled an object or array). Empty when nothing inserted
    /// reaches `path` — the template's fixed text is there, which the catalog checked when the file loaded.
    func insertedValues(at path: JSONPointer) -> [RequestValueName] {
        let target = path.string
        var names: [RequestValueName] = []
        for string in templatedStrings {
            let prefix = string.path.string
            guard target == prefix || target.hasPrefix(prefix + "/") else { continue }
            for name in string.names where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The request values inserted anywhere inside `path` of a filled answer: for an error about a whole subtree
    /// (`budget_exceeded` on a widget's content, `nesting_too_deep`) that only what was inserted into it can explain,
    /// since the template's fixed text passed the same rules at load.
    func insertedValues(under path: JSONPointer) -> [RequestValueName] {
        let target = path.string
        var names: [RequestValueName] = []
        for string in templatedStrings {
            let inner = string.path.string
            guard inner == target || inner.hasPrefix(target + "/") else { continue }
            for name in string.names where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The JSON with every placeholder filled from `facts`.
    func render(_ facts: RequestFacts) -> JSONValue { Self.render(root, facts) }

    private static func node(
        _ value: JSONValue, at path: JSONPointer, strings: inout [TemplatedString], errors: inout [MatchingError]
    ) -> Node {
        switch value {
        case .string(let text):
            guard text.contains("{{") else { return .fixed(value) }
            do {
                let segments = try parseSegments(text)
                guard segments.contains(where: { if case .placeholder = $0 { true } else { false } }) else {
                    return .fixed(
                        .string(segments.map { if case .literal(let part) = $0 { part } else { "" } }.joined()))
                }
                let names = segments.compactMap { if case .placeholder(let name, _) = $0 { name } else { nil } }
                strings.append(TemplatedString(path: path, names: names))
                return .text(segments)
            } catch {
                errors.append(MatchingError(error.code, error.message, at: path))
                return .fixed(value)
            }
        case .array(let items):
            let nodes = items.enumerated().map { node($1, at: path / $0, strings: &strings, errors: &errors) }
            return nodes.allSatisfy { if case .fixed = $0 { true } else { false } } ? .fixed(value) : .array(nodes)
        case .object(let object):
            let members = object.members.map {
                (key: $0.key, node: node($0.value, at: path / $0.key, strings: &strings, errors: &errors))
            }
            return members.allSatisfy { if case .fixed = $0.node { true } else { false } }
                ? .fixed(value) : .object(members)
        default:
            return .fixed(value)
        }
    }

    /// Splits one string into literal text and placeholders (``TemplateText``) naming request values.
    static func parseSegments(_ text: String) throws(MatchingError) -> [Segment] {
        var segments: [Segment] = []
        for piece in try TemplateText.split(text) {
            switch piece {
            case .literal(let part): segments.append(.literal(part))
            case .placeholder(let name, let asText):
                segments.append(.placeholder(try RequestValueName(parsing: name), asText: asText))
            }
        }
        return segments
    }

    private static func render(_ node: Node, _ facts: RequestFacts) -> JSONValue {
        switch node {
        case .fixed(let value): return value
        case .array(let nodes): return .array(nodes.map { render($0, facts) })
        case .object(let members):
            return .object(JSONObject(members.map { JSONObject.Member(key: $0.key, value: render($0.node, facts)) }))
        case .text(let segments):
            if segments.count == 1, case .placeholder(let name, let asText) = segments[0], !asText {
                return facts.value(name) ?? .string("")
            }
            var text = ""
            for segment in segments {
                switch segment {
                case .literal(let part): text += part
                case .placeholder(let name, _): text += facts.value(name)?.templateText ?? ""
                }
            }
            return .string(text)
        }
    }
}
