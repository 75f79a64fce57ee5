import PageModel

/// The text layout of the hand-written page files (`pages/tools/pagejson.py`), for recorded files: 2-space
/// indentation, a small object or array (one without page structure in it) on one line when it fits in 120
/// columns, member order kept, a trailing newline. Scalars are written by ``JSONWriter``, so the same value always
/// gives the same bytes.
enum PageFileFormat {
    static let width = 120
    /// Members whose objects are always broken over lines (a page's structure stays readable).
    static let multilineKeys: Set<String> = [
        "content", "widgets", "children", "sections", "mutations", "page", "widget",
    ]

    /// The formatted bytes of `value`, with a trailing newline.
    static func bytes(_ value: JSONValue) -> [UInt8] {
        Array((format(value, indent: 0, prefixLength: 0) + "\n").utf8)
    }

    private static func scalar(_ value: JSONValue) -> String { JSONWriter().string(value) }

    private static func key(_ key: String) -> String { scalar(.string(key)) }

    private static func inline(_ value: JSONValue) -> String {
        switch value {
        case .object(let object):
            guard !object.isEmpty else { return "{}" }
            return "{ " + object.members.map { key($0.key) + ": " + inline($0.value) }.joined(separator: ", ") + " }"
        case .array(let array):
            guard !array.isEmpty else { return "[]" }
            return "[ " + array.map(inline).joined(separator: ", ") + " ]"
        default:
            return scalar(value)
        }
    }

    private static func mayInline(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object):
            object.members.allSatisfy { !multilineKeys.contains($0.key) && mayInline($0.value) }
        case .array(let array):
            array.allSatisfy(mayInline)
        default:
            true
        }
    }

    private static func format(_ value: JSONValue, indent: Int, prefixLength: Int) -> String {
        let text = inline(value)
        switch value {
        case .object(let object) where !object.isEmpty:
            if mayInline(value), indent + prefixLength + text.unicodeScalars.count + 1 <= width { return text }
            let pad = String(repeating: " ", count: indent + 2)
            let items = object.members.map { member in
                let name = key(member.key) + ": "
                return pad + name + format(member.value, indent: indent + 2, prefixLength: name.unicodeScalars.count)
            }
            return "{\n" + items.joined(separator: ",\n") + "\n" + String(repeating: " ", count: indent) + "}"
        case .array(let array) where !array.isEmpty:
            if mayInline(value), indent + prefixLength + text.unicodeScalars.count + 1 <= width { return text }
            let pad = String(repeating: " ", count: indent + 2)
            let items = array.map { pad + format($0, indent: indent + 2, prefixLength: 0) }
            return "[\n" + items.joined(separator: ",\n") + "\n" + String(repeating: " ", count: indent) + "]"
        default:
            return text
        }
    }
}
