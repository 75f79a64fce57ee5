extension PageModel {
    /// The document after `mutation`. Pure: `self` is unchanged.
    ///
    /// - Throws: ``ContractError`` `mutation_target_not_found` when `replaceWidget` or `removeWidget` names an id
    ///   that is not in the document — never a silent no-op.
    /// - Note: section and widget ids that collide with ones already in the document are renamed by the id rule
    ///   (`id#2`, …) and reported in `diagnostics` as `duplicate_id` errors, with paths relative to the mutation
    ///   object (`/sections/0/id`, `/widget/id`). A replaced top-level widget is checked against the page's
    ///   top-level ids; a replaced nested widget against its siblings.
    public func applying(_ mutation: PageMutation, diagnostics: inout [Diagnostic]) throws(ContractError)
        -> PageModel
    {
        var page = self
        switch mutation {
        case .replacePage(let replacement):
            return replacement
        case .appendSections(let sections):
            let added = page.adopt(sections, diagnostics: &diagnostics)
            page.sections.append(contentsOf: added)
        case .prependSections(let sections):
            let added = page.adopt(sections, diagnostics: &diagnostics)
            page.sections.insert(contentsOf: added, at: 0)
        case .replaceWidget(let id, var widget):
            guard let location = page.locate(id) else { throw Self.notFound(id, "replaceWidget") }
            if widget.id != id {
                var ids = UniqueIDs(location.isTopLevel ? page.topLevelWidgetIDs : page.siblingIDs(of: location))
                ids.release(id)
                let claimed = ids.claim(widget.id)
                if claimed != widget.id {
                    diagnostics.append(
                        .error(
                            "duplicate_id", "/widget/id", widgetID: claimed,
                            "id \"\(widget.id)\" is already used on the page; renamed to \"\(claimed)\""))
                    widget.id = claimed
                }
            }
            page.modify(at: location) { $0 = widget }
        case .removeWidget(let id):
            guard let location = page.locate(id) else { throw Self.notFound(id, "removeWidget") }
            page.modify(at: location) { $0 = nil }
        }
        return page
    }

    /// The document after `mutation`, discarding rename diagnostics.
    public func applying(_ mutation: PageMutation) throws(ContractError) -> PageModel {
        var diagnostics: [Diagnostic] = []
        return try applying(mutation, diagnostics: &diagnostics)
    }

    /// The document after appending a `nextPage` chunk: its sections and its pagination.
    ///
    /// Generated ids in the chunk (relative to the chunk, `section@sections.0`) are moved to where the sections
    /// land in the document (`section@sections.4`), so a page served in chunks gets the ids it would get in one
    /// piece; then ids that collide with this document's are renamed by the id rule (`duplicate_id` errors, paths
    /// relative to the chunk).
    /// - Parameter diagnostics: the chunk's decode diagnostics in, rename findings appended; the `widgetID` of
    ///   the findings passed in follows the widgets to their document ids.
    public func appending(_ next: NextPage, diagnostics: inout [Diagnostic]) -> PageModel {
        var index = PageIDIndex(self)
        return appending(next, diagnostics: &diagnostics, index: &index)
    }

    /// ``appending(_:diagnostics:)`` with the ids of this document already indexed, so the cost is proportional
    /// to the chunk, not to the document: long paginated pages append in linear total time.
    ///
    /// - Parameter index: ``PageIDIndex`` of exactly this document; updated to index the result.
    public func appending(_ next: NextPage, diagnostics: inout [Diagnostic], index: inout PageIDIndex) -> PageModel {
        var page = self
        page.append(next, diagnostics: &diagnostics, index: &index)
        return page
    }

    /// ``appending(_:diagnostics:index:)`` in place: when this document's storage is not shared, the chunk's
    /// sections are appended to it without copying the sections already there (amortized cost of the chunk).
    ///
    /// - Parameter index: ``PageIDIndex`` of exactly this document; updated to index the result.
    public mutating func append(_ next: NextPage, diagnostics: inout [Diagnostic], index: inout PageIDIndex) {
        var renamed: [String: String] = [:]
        let offset = sections.count
        let arriving = next.sections.map { GeneratedID.rebase($0, sectionOffset: offset, renamed: &renamed) }
        if !renamed.isEmpty {
            for position in diagnostics.indices {
                if let old = diagnostics[position].widgetID, let new = renamed[old] {
                    diagnostics[position].widgetID = new
                }
            }
        }
        sections.append(
            contentsOf: Self.adopt(
                arriving, sectionIDs: &index.sectionIDs, widgetIDs: &index.widgetIDs, diagnostics: &diagnostics))
        pagination = next.pagination
    }

    static func notFound(_ id: String, _ type: String) -> ContractError {
        ContractError(
            code: "mutation_target_not_found", path: "/id",
            message: "\(type): no widget with id \"\(id)\" in the document")
    }

    /// Every top-level widget id, in document order.
    public var topLevelWidgetIDs: [String] {
        var ids = header.map(\.id)
        for section in sections { ids.append(contentsOf: section.widgets.map(\.id)) }
        ids.append(contentsOf: footer.map(\.id))
        return ids
    }

    /// Renames incoming section and widget ids that collide with this document's.
    func adopt(_ sections: [Section], diagnostics: inout [Diagnostic]) -> [Section] {
        var index = PageIDIndex(self)
        return Self.adopt(
            sections, sectionIDs: &index.sectionIDs, widgetIDs: &index.widgetIDs, diagnostics: &diagnostics)
    }

    /// Renames incoming section and widget ids that collide with the claimed ones, claiming the new ids.
    static func adopt(
        _ sections: [Section], sectionIDs: inout UniqueIDs, widgetIDs: inout UniqueIDs, diagnostics: inout [Diagnostic]
    ) -> [Section] {
        var adopted = sections
        for index in adopted.indices {
            let original = adopted[index].id
            adopted[index].id = sectionIDs.claim(original)
            if adopted[index].id != original {
                diagnostics.append(
                    .error(
                        "duplicate_id", JSONPointer.root / "sections" / index / "id",
                        "section id \"\(original)\" is already in the document; renamed to \"\(adopted[index].id)\""))
            }
            for widgetIndex in adopted[index].widgets.indices {
                let widgetID = adopted[index].widgets[widgetIndex].id
                let claimed = widgetIDs.claim(widgetID)
                if claimed != widgetID {
                    adopted[index].widgets[widgetIndex].id = claimed
                    diagnostics.append(
                        .error(
                            "duplicate_id", JSONPointer.root / "sections" / index / "widgets" / widgetIndex / "id",
                            widgetID: claimed,
                            "widget id \"\(widgetID)\" is already on the page; renamed to \"\(claimed)\""))
                }
            }
        }
        return adopted
    }
}

/// The section ids and top-level widget ids of one document: what ``PageModel/appending(_:diagnostics:index:)``
/// checks a chunk against. Build it once per document and let appending keep it current.
public struct PageIDIndex: Sendable {
    var sectionIDs: UniqueIDs
    var widgetIDs: UniqueIDs

    /// Indexes `page`; cost proportional to its size.
    public init(_ page: PageModel) {
        sectionIDs = UniqueIDs(page.sections.map(\.id))
        widgetIDs = UniqueIDs(page.topLevelWidgetIDs)
    }
}
