import PageModel

extension ProblemDetails {
    /// Mock mode's 404 for a page or scenario whose file exists but has never loaded (broken since it appeared):
    /// names the file and its first error, with every diagnostic of the file. Production answers `page_not_found`
    /// instead (file paths are internal), and cannot get here at all: `serve` refuses to start on a broken page.
    ///
    /// - Parameters:
    ///   - file: the file, relative to the pages directory; `notice` its first error (`file: line:column: code`).
    ///   - catalog: the catalog whose diagnostics list the file's findings.
    static func pageFileInvalid(_ pageID: String, file: String, notice: String, in catalog: PageCatalog)
        -> ProblemDetails
    {
        let findings = catalog.diagnostics.filter { $0.file == file }
        let message = findings.first { $0.diagnostic.severity == .error }?.diagnostic.message ?? ""
        return ProblemDetails(
            .pageFileInvalid,
            detail:
                "\(file) (page \"\(pageID)\") has never loaded: it has errors and there is no last good version "
                + "to serve. \(notice): \(message)",
            diagnostics: findings.map(\.diagnostic))
    }
}
