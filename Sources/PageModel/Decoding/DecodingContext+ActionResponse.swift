extension DecodingContext {
    mutating func actionResponse(_ object: JSONObject, at path: LazyPointer) throws(ContractError) -> ActionResponse {
        documentRoot = path.pointer
        var response = ActionResponse()
        if let mutations = object["mutations"], !mutations.isNull {
            for (index, element) in try array(mutations, at: path / "mutations").enumerated() {
                if let mutation = try mutation(element, at: path / "mutations" / index) {
                    response.mutations.append(mutation)
                }
            }
        }
        if let effects = object["effects"], !effects.isNull {
            for (index, element) in try array(effects, at: path / "effects").enumerated() {
                if let effect = action(element, at: path / "effects" / index, widgetID: nil) {
                    response.effects.append(effect)
                }
            }
        }
        return response
    }

    /// One mutation. A missing required member throws (a half-understood mutation must not be applied); an
    /// unknown mutation type is skipped with an `unknown_mutation_type` warning.
    mutating func mutation(_ value: JSONValue, at path: LazyPointer) throws(ContractError) -> PageMutation? {
        let object = try self.object(value, at: path)
        let type = try string(object["type"], at: path / "type")
        let root = documentRoot
        defer { documentRoot = root }
        switch type {
        case MutationType.replacePage:
            guard let page = object["page"] else { throw Self.missing(path.pointer / "page", "object") }
            return .replacePage(try self.page(page, at: path / "page"))
        case MutationType.appendSections, MutationType.prependSections:
            // Rooted at the response (`section@mutations.2.sections.0`), never at the mutation: a mutation-relative
            // `section@sections.0` would collide with the page's own generated ids (docs/contract.md § 10).
            var sections = try self.sections(object["sections"], at: path / "sections")
            var sectionIDs = UniqueIDs()
            dedupe(&sections, at: path / "sections", using: &sectionIDs)
            var widgetIDs = UniqueIDs()
            for index in sections.indices {
                dedupe(&sections[index].widgets, at: path / "sections" / index / "widgets", using: &widgetIDs)
            }
            return type == MutationType.appendSections ? .appendSections(sections) : .prependSections(sections)
        case MutationType.replaceWidget:
            let id = try string(object["id"], at: path / "id")
            guard let widgetValue = object["widget"] else { throw Self.missing(path.pointer / "widget", "object") }
            documentRoot = path.pointer
            var widgetObject = try self.object(widgetValue, at: path / "widget")
            if widgetObject["id"]?.isNull ?? true { widgetObject["id"] = .string(id) }
            // An object always decodes to a widget (problems inside it are diagnostics).
            let widget = widget(.object(widgetObject), at: path / "widget")!
            return .replaceWidget(id: id, widget: widget)
        case MutationType.removeWidget:
            return .removeWidget(id: try string(object["id"], at: path / "id"))
        default:
            diagnostics.append(
                .warning("unknown_mutation_type", path.pointer / "type", "unknown mutation type \"\(type)\"; skipped"))
            return nil
        }
    }
}
