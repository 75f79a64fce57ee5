import PageModel

/// One decoded scenario file (`<pageID>.<scenario>.json`): a problem document or a page document, with the
/// diagnostics of the file on its own. What it references in other files is checked by
/// ``PageCatalog/addScenarios(directory:names:)``.
struct ScenarioFile: Sendable {
    /// The problem answer, when the file is a problem document.
    var problem: ProblemDetails?
    /// The page, when the file decodes to one (it may still have error diagnostics).
    var page: CatalogPage?
    /// What the page names in other files.
    var references: [PageReference] = []
    var diagnostics: [Diagnostic] = []
    /// True when the page is made from data (``PageTemplate``).
    var isGenerated = false

    init(
        bytes: [UInt8], file: String, pageID: String, defaults: BFFConfiguration.Pages, catalog: WidgetCatalog,
        data: DataDocuments = DataDocuments()
    ) {
        if let problem = PageCatalog.scenarioProblem(bytes, diagnostics: &diagnostics) {
            self.problem = problem
            return
        }
        let pageFile = PageFile(
            bytes: bytes, file: file, expectedID: pageID, defaults: defaults, catalog: catalog, data: data)
        diagnostics += pageFile.diagnostics
        isGenerated = pageFile.isGenerated
        if !pageFile.actions.isEmpty {
            diagnostics.append(
                .error(
                    "scenario_declares_actions", "/server/actions",
                    "scenario files declare no actions; declare them in \(pageID).json"))
        }
        guard let page = pageFile.page else { return }
        if !page.variants.isEmpty {
            diagnostics.append(
                .error(
                    "scenario_declares_variants", "/server/variants",
                    "scenario files declare no variants; declare them in \(pageID).json"))
        }
        self.page = page
        references = pageFile.references
    }
}
