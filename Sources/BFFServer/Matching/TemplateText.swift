import Foundation

/// The `{{…}}` syntax shared by answers' request templates (``ResponseTemplate``) and pages' data templates
/// (``PageTemplate``): literal runs and placeholders, `{{name}}` or `{{name | text}}`, with `\{{` for a literal `{{`.
enum TemplateText {
    enum Piece: Sendable, Hashable {
        case literal(String)
        /// The name as written (trimmed), and whether the `text` filter keeps the value text.
        case placeholder(String, asText: Bool)
    }

    /// Splits `text` into literal runs and placeholders.
    /// - Throws: `invalid_template` for an unclosed `{{`, an empty placeholder or an unknown filter.
    static func split(_ text: String) throws(MatchingError) -> [Piece] {
        var pieces: [Piece] = []
        var literal = ""
        var rest = Substring(text)
        while !rest.isEmpty {
            if rest.hasPrefix("\\{{") {
                literal += "{{"
                rest = rest.dropFirst(3)
            } else if rest.hasPrefix("{{") {
                guard let close = rest.range(of: "}}") else {
                    throw MatchingError(
                        "invalid_template", "\"{{\" without a closing \"}}\"; write \\{{ for a literal {{")
                }
                let inside = rest[rest.index(rest.startIndex, offsetBy: 2)..<close.lowerBound]
                let parts = inside.split(separator: "|", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard let first = parts.first, !first.isEmpty else {
                    throw MatchingError("invalid_template", "an empty placeholder {{}}")
                }
                var asText = false
                if parts.count == 2 {
                    guard parts[1] == "text" else {
                        throw MatchingError(
                            "invalid_template",
                            "unknown filter \"\(parts[1])\" in {{\(inside)}}; the one filter is text")
                    }
                    asText = true
                }
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = ""
                pieces.append(.placeholder(first, asText: asText))
                rest = rest[close.upperBound...]
            } else {
                literal.append(rest.removeFirst())
            }
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return pieces
    }
}
