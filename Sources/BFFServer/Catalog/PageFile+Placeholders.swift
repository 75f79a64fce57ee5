import PageModel

extension PageFile {
    /// A `{{…}}` in a page's content is served as written: placeholders are filled only in `server.actions`
    /// answers (pages/README.md § Templating). Each string of `value` that holds one is a
    /// `placeholder_outside_answer` warning at its path, so an author who expected it filled learns why it is not.
    static func placeholdersOutsideAnswers(in value: JSONValue, at path: JSONPointer) -> [Diagnostic] {
        var found: [Diagnostic] = []
        func walk(_ value: JSONValue, _ path: JSONPointer) {
            switch value {
            case .string(let text):
                guard let open = text.firstRange(of: "{{"), text[open.upperBound...].contains("}}") else { return }
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
}
