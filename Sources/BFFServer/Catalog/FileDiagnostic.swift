import PageModel

/// A diagnostic found while loading a page file: `file: JSON-path: severity: code: message`; `flow-bff check`
/// and `serve` print it with its position, ``located(in:)``.
public struct FileDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The file, relative to the pages directory.
    public var file: String
    public var diagnostic: Diagnostic
    /// Where the value at the diagnostic's path starts in the file (its nearest existing parent for a missing
    /// member); for a JSON syntax error, where parsing stopped. `nil` when the file has no such position.
    public var position: JSONSourceMap.Position?

    public init(file: String, diagnostic: Diagnostic, position: JSONSourceMap.Position? = nil) {
        self.file = file
        self.diagnostic = diagnostic
        self.position = position
    }

    public var description: String { "\(file): \(diagnostic)" }

    /// `directory/file:line:column: JSON-path: severity: code: message` (without `:line:column` when there is no
    /// position, and without the directory when `file` is the directory itself or `directory` is `nil`).
    public func located(in directory: String? = nil) -> String {
        var path = file
        if let directory, file != directory {
            path = (directory.hasSuffix("/") ? directory : directory + "/") + file
        }
        guard let position else { return "\(path): \(diagnostic)" }
        return "\(path):\(position.line):\(position.column): \(diagnostic)"
    }
}

extension Array where Element == FileDiagnostic {
    public var containsErrors: Bool { contains { $0.diagnostic.severity == .error } }
    /// The number of error diagnostics.
    public var errorCount: Int { count { $0.diagnostic.severity == .error } }
    /// The number of warning diagnostics.
    public var warningCount: Int { count { $0.diagnostic.severity == .warning } }
}
