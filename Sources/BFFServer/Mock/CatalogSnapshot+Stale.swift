extension CatalogSnapshot {
    /// The `X-Flow-Mock-Stale` value for `file` (relative to the pages directory) when it has an error: its first
    /// error as `file: line:column: code`.
    func staleNotice(for file: String) -> String? {
        file.isEmpty ? nil : brokenFiles[file]?.staleNotice
    }
}
