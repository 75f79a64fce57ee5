/// A document that cannot be decoded at all: broken JSON or a broken envelope.
///
/// Thrown, never recovered; `path` names where decoding stopped. Content problems inside one widget are not
/// errors of this kind: they become ``Diagnostic``s and placeholder content.
public struct ContractError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable machine code: `invalid_json`, `invalid_envelope`, `unsupported_schema_version`, `unexpected_kind`,
    /// `mutation_target_not_found`, …
    public var code: String
    public var path: JSONPointer
    public var message: String

    public init(code: String, path: JSONPointer, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String {
        "\(path.string.isEmpty ? "/" : path.string): \(code): \(message)"
    }

    /// The error as a diagnostic of severity `error`.
    public var diagnostic: Diagnostic { .error(code, path, message) }
}
