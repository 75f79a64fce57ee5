extension PageResolver {
    /// An api action's answer as this client sees it: the documents its mutations carry are resolved like pages
    /// (a replacement widget the client cannot render takes its fallback; one with no usable fallback turns the
    /// `replaceWidget` into a `removeWidget` of the same id), and toast effects are localized.
    public func resolve(_ response: ActionResponse) -> (response: ActionResponse, degradations: [Degradation]) {
        var degradations: [Degradation] = []
        var resolved = ActionResponse()
        for mutation in response.mutations {
            switch mutation {
            case .replacePage(let page):
                let (page, changes) = resolve(page)
                degradations += changes
                resolved.mutations.append(.replacePage(page))
            case .appendSections(let sections):
                let (sections, changes) = resolve(sections)
                degradations += changes
                resolved.mutations.append(.appendSections(sections))
            case .prependSections(let sections):
                let (sections, changes) = resolve(sections)
                degradations += changes
                resolved.mutations.append(.prependSections(sections))
            case .replaceWidget(let id, let replacement):
                if let widget = widget(replacement, sectionID: nil, depth: 0, into: &degradations) {
                    resolved.mutations.append(.replaceWidget(id: id, widget: widget))
                } else {
                    resolved.mutations.append(.removeWidget(id: id))
                }
            case .removeWidget:
                resolved.mutations.append(mutation)
            }
        }
        resolved.effects = response.effects.map { effect in
            if case .toast(let message) = effect { return .toast(message: localize(message)) }
            return effect
        }
        return (resolved, degradations)
    }
}
