import PageModel

extension PageCrawl {
    /// The lint a server must pass before it sends a document (`PageValidator`, contract § 12): its `error`
    /// findings are violations like the decoder's (`budget_exceeded`, `missing_children`,
    /// `pagination_on_empty_page`, …); warnings are not.
    static let validator = PageValidator()

    /// Lints a first page (or a refreshed one); paths are rooted at `/page`.
    func lint(_ page: PageModel, check: String, request: String) {
        record(Self.validator.validate(page), check: check, request: request)
    }

    /// Lints the sections a chunk brought, at their positions in the chunk (`/sections/0/…`).
    func lint(chunk sections: [Section], check: String, request: String) {
        for (offset, section) in sections.enumerated() {
            record(
                Self.validator.validate(section, at: JSONPointer.root / "sections" / offset), check: check,
                request: request)
        }
    }

    /// Lints what an action response's mutations bring, at `/mutations/i`.
    func lint(_ response: ActionResponse, check: String, request: String) {
        for (index, mutation) in response.mutations.enumerated() {
            let findings = Self.validator.validate(mutation, at: JSONPointer.root / "mutations" / index)
            for finding in findings where finding.severity == .error {
                record(
                    ViolationCode.errorDiagnostic, check, request: request, path: finding.path,
                    message: "\(finding.code): \(finding.message)")
            }
        }
    }
}
