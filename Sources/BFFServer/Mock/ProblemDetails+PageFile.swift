import PageModel

extension ProblemDetails {
    /// Mock mode's 404 for a page or scenario whose file exists but has never loaded (broken since it appeared):
    /// names the file and its first error, with every diagnostic of the file. Production answers `page_not_found`
    /// instead (file paths are internal), and cannot get here at all: `serve` refuses to start on a broken page.
    static func pageFileInvalid(_ pageID: String, first: FileDiagnostic, all: [FileDiagnostic]) -> ProblemDetails {
        ProblemDetails(
            status: 404, code: "page_file_invalid", title: "Page file invalid",
            detail:
                "\(first.file) (page \"\(pageID)\") has never loaded: it has errors and there is no last good version "
                + "to serve. \(first.staleNotice): \(first.diagnostic.message)",
            diagnostics: all.filter { $0.file == first.file }.map(\.diagnostic))
    }
}
