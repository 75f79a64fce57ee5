import Foundation
import PageModel

extension PageFile {
    /// A `{{…}}` in a page's content is served as written: placeholders are filled only in `server.actions`
    /// answers (pages/README.md § Templating). Each string of `value` that holds one is a
    /// `placeholder_outside_answer` warning at its path, so an author who expected it filled learns why it is not.
    /// Only what reads as a placeholder is reported — a request value, or a near miss of one — so a page that shows
    /// other `{{…}}` text (a URL template, help text) passes `check --strict`.
    static func placeholdersOutsideAnswers(in value: JSONValue, at path: JSONPointer) -> [Diagnostic] {
        var found: [Diagnostic] = []
        func walk(_ value: JSONValue, _ path: JSONPointer) {
            switch value {
            case .string(let text):
                guard Self.holdsPlaceholder(text) else { return }
                found.append(
                    .warning(
                        "placeholder_outside_answer", path,
                        "\"\(text)\" is served as written: {{…}} placeholders are filled only in server.actions "
                            + "answers"))
            case .array(let items):
                for (index, item) in items.enumerated() { walk(item, path / index) }
            case .object(let object):
                for member in object.members { walk(member.value, path / member.key) }
            default:
                break
            }
        }
        walk(value, path)
        return found
    }

    /// Whether `text` holds `{{name}}` (or `{{name | filter}}`) where `name` is a request value or close to one.
    static func holdsPlaceholder(_ text: String) -> Bool {
        // Most strings hold no brace at all: skip them without a substring search.
        guard text.utf8.contains(UInt8(ascii: "{")) else { return false }
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            let inside = rest[open.upperBound..<close.lowerBound]
            let name = String(inside.split(separator: "|", maxSplits: 1).first ?? "").trimmingCharacters(
                in: .whitespaces)
            if (try? RequestValueName(parsing: name)) != nil || RequestValueName.suggestion(for: name) != nil {
                return true
            }
            rest = rest[close.upperBound...]
        }
        return false
    }
}
