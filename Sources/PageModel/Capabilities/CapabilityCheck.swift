/// Checks a page **as served** to a client: every widget must be one the client can render. This is what
/// `flow-bff verify --capabilities PROFILE` asserts for every page and chunk it crawls.
public enum CapabilityCheck {
    /// `unrenderable_widget` / `unrenderable_section` errors for every element `capabilities` cannot show, and
    /// `unresolved_string` errors for `$l10n:` markers left in the document. Paths are rooted at `path`.
    public static func problems(
        in page: PageModel, for capabilities: ClientCapabilities, at path: JSONPointer = "/page"
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let resolver = PageResolver(capabilities: capabilities)
        widgets(page.header, at: path / "header", resolver, &diagnostics)
        diagnostics += problems(in: page.sections, for: capabilities, at: path / "sections")
        widgets(page.footer, at: path / "footer", resolver, &diagnostics)
        LocalizedStrings.forEachMarker(in: page, at: path) { key, pointer, widgetID in
            diagnostics.append(
                .error(
                    "unresolved_string", pointer, widgetID: widgetID, "the string \"$l10n:\(key)\" was not localized"))
        }
        return diagnostics
    }

    /// The same check for a `nextPage` chunk's sections.
    public static func problems(
        in sections: [Section], for capabilities: ClientCapabilities, at path: JSONPointer = "/sections"
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let resolver = PageResolver(capabilities: capabilities)
        for (index, section) in sections.enumerated() {
            if let reason = resolver.unmet(type: nil, section.compatibility) {
                diagnostics.append(
                    .error(
                        "unrenderable_section", path / index,
                        "section \"\(section.id)\" cannot be shown to this client: \(reason)"))
            }
            widgets(section.widgets, at: path / index / "widgets", resolver, &diagnostics)
        }
        return diagnostics
    }

    static func widgets(
        _ widgets: [Widget], at path: JSONPointer, _ resolver: PageResolver, _ diagnostics: inout [Diagnostic]
    ) {
        for (index, widget) in widgets.enumerated() {
            if let reason = resolver.unmet(type: widget.type, widget.compatibility) {
                diagnostics.append(
                    .error(
                        "unrenderable_widget", path / index, widgetID: widget.id,
                        "\(widget.type) \"\(widget.id)\" cannot be shown to this client: \(reason)"))
            }
            self.widgets(widget.children, at: path / index / "children", resolver, &diagnostics)
        }
    }
}
