/// Generated ids (`prefix@codingPath`, docs/contract.md § 10) moved from one document root to another.
enum GeneratedID {
    /// `section` with its generated ids — its own, its widgets', their children's — moved from the coding path
    /// of a `nextPage` chunk (`sections.0…`) to the document position the section lands at
    /// (`sections.{offset}…`). Backend ids are kept. Each changed id is recorded in `renamed` (old → new).
    static func rebase(_ section: Section, sectionOffset: Int, renamed: inout [String: String]) -> Section {
        guard sectionOffset != 0 else { return section }
        var section = section
        if section.isGeneratedID, let id = rebased(section.id, sectionOffset: sectionOffset) {
            section.id = id
        }
        for index in section.widgets.indices {
            rebase(&section.widgets[index], sectionOffset: sectionOffset, renamed: &renamed)
        }
        return section
    }

    private static func rebase(_ widget: inout Widget, sectionOffset: Int, renamed: inout [String: String]) {
        if widget.isGeneratedID, let id = rebased(widget.id, sectionOffset: sectionOffset) {
            renamed[widget.id] = id
            widget.id = id
        }
        for index in widget.children.indices {
            rebase(&widget.children[index], sectionOffset: sectionOffset, renamed: &renamed)
        }
    }

    /// `prefix@sections.{i}rest` as `prefix@sections.{i + sectionOffset}rest`; `nil` when `id` does not have
    /// that form. The prefix is everything before the last `@` (coding paths never contain one); a `#n` suffix
    /// from a rename inside the chunk is kept.
    static func rebased(_ id: String, sectionOffset: Int) -> String? {
        guard let at = id.lastIndex(of: "@") else { return nil }
        let path = id[id.index(after: at)...]
        let marker = "sections."
        guard path.hasPrefix(marker) else { return nil }
        let afterMarker = path.dropFirst(marker.count)
        let digits = afterMarker.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let position = Int(digits) else { return nil }
        return String(id[...at]) + marker + String(position + sectionOffset) + afterMarker.dropFirst(digits.count)
    }
}
