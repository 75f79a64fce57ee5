import PageModel

/// A diagnostic found while loading a page file: printed as `file: JSON-path: severity: code: message`.
public struct FileDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The file, relative to the pages directory.
    public var file: String
    public var diagnostic: Diagnostic

    public init(file: String, diagnostic: Diagnostic) {
        self.file = file
        self.diagnostic = diagnostic
    }

    public var description: String { "\(file): \(diagnostic)" }
}

extension Array where Element == FileDiagnostic {
    public var containsErrors: Bool { contains { $0.diagnostic.severity == .error } }
    /// The number of error diagnostics.
    public var errorCount: Int { count { $0.diagnostic.severity == .error } }
}
