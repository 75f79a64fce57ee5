import PageModel

/// What a page made from data was made from, so the mock can make it again from a session's copy of the data
/// (``DataChange``): the page file's bytes and the settings it was decoded with.
struct PageGenerator: Sendable {
    var bytes: [UInt8]
    var file: String
    var expectedID: String
    var defaults: BFFConfiguration.Pages
    var catalog: WidgetCatalog
    /// The data documents the page reads.
    var documents: Set<String>

    /// The page made from `data` (for the query parameters `query`); `nil` when that page has errors (the session
    /// keeps what it had).
    func page(with data: DataDocuments, query: [String: String] = [:]) -> CatalogPage? {
        let made = file(with: data, query: query)
        guard !made.diagnostics.containsErrors else { return nil }
        return made.page
    }

    /// The page file decoded with `data`, with its findings.
    func file(with data: DataDocuments, query: [String: String] = [:]) -> PageFile {
        PageFile(
            bytes: bytes, file: file, expectedID: expectedID, defaults: defaults, catalog: catalog, data: data,
            query: query)
    }
}
