import PageModel

/// The widgets a device could hold on one page, with the events each declares: the page's own widgets (every
/// chunk) and every widget an api action reachable from them can bring (mutations of the actions' answers,
/// transitively through the widgets those add and the api effects they fire). An action request must name one
/// of them and one of its events (docs/contract.md § Api actions); a production server holds no per-device state,
/// so this is the set any device could have reached.
struct ActionTargets: Sendable {
    /// Widget id → the events (`tap`, `change`) it declares.
    let events: [String: Set<String>]
    /// The answers of every api action followed, by name (none for a name no page declares): these targets hold
    /// for any catalog whose actions of those names answer the same (``isCurrent(for:)``).
    let followed: [String: [ActionResponse]]
    /// The templated ids (`undo.{{request.payload.orderID}}`) an answer can bring as new widgets, each standing for
    /// the ids it is filled with. An id that only replaces itself (`cancel.{{…}}` by `cancel.{{…}}`) brings no new
    /// one: its target must already be held.
    let creatable: [String]

    /// - Parameters:
    ///   - page: the page as served.
    ///   - actions: the catalog's api actions by name (their answers may bring more widgets).
    init(page: PageModel, actions: [String: CatalogAction]) {
        var events: [String: Set<String>] = [:]
        var pending: [String] = []
        var seen: Set<String> = []
        var followed: [String: [ActionResponse]] = [:]
        var creatable: Set<String> = []
        func templated(_ widgets: [Widget]) {
            for widget in widgets {
                if widget.id.contains("{{") { creatable.insert(widget.id) }
                templated(widget.children)
            }
        }
        func follow(_ action: Action) {
            if case .api(let name, _) = action, seen.insert(name).inserted { pending.append(name) }
        }
        func visit(_ widgets: [Widget]) {
            for widget in widgets {
                events[widget.id, default: []].formUnion(widget.actions.keys)
                widget.actions.values.forEach(follow)
                visit(widget.children)
            }
        }
        func visit(_ page: PageModel) {
            visit(page.header)
            for section in page.sections { visit(section.widgets) }
            visit(page.footer)
        }
        visit(page)
        while let name = pending.popLast() {
            let responses = actions[name]?.responses ?? []
            followed[name] = responses
            for response in responses {
                for mutation in response.mutations {
                    let widgets = mutation.broughtWidgets
                    visit(widgets)
                    // A widget that replaces itself (same id) brings no new id; its children may.
                    if let target = mutation.targetID, let widget = widgets.first, widget.id == target {
                        templated(widget.children)
                    } else {
                        templated(widgets)
                    }
                }
                response.effects.forEach(follow)
            }
        }
        self.events = events
        self.followed = followed
        self.creatable = creatable.sorted()
    }

    /// True when `actions` answer like the actions these targets were made with, for every action they followed
    /// (a reload that changed no such action keeps them).
    func isCurrent(for actions: [String: CatalogAction]) -> Bool {
        followed.allSatisfy { name, responses in (actions[name]?.responses ?? []) == responses }
    }

    /// Whether a device can hold a widget `id` here: one of ``events``, or one a templated answer can bring
    /// (``creatable``: `undo.{{request.payload.orderID}}` holds `undo.o-1001`, each placeholder standing for any
    /// text).
    func holds(_ id: String) -> Bool { self.events(of: id) != nil }

    /// The events of the widget `id` (``holds(_:)``): its own, or those of every templated id it fills.
    func events(of id: String) -> Set<String>? {
        if let exact = events[id] { return exact }
        var found: Set<String>?
        for key in creatable {
            guard let declared = events[key],
                FaultRule.glob(Array(Self.pattern(of: key).utf8)[...], Array(id.utf8)[...])
            else { continue }
            found = (found ?? []).union(declared)
        }
        return found
    }

    /// A templated id as a glob: each `{{…}}` becomes `*`.
    static func pattern(of id: String) -> String {
        var pattern = ""
        var rest = Substring(id)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            pattern += rest[..<open.lowerBound] + "*"
            rest = rest[close.upperBound...]
        }
        return pattern + rest
    }

    /// Checks that `request` names a widget of these targets (of any of `targets`) and an event it declares.
    /// - Throws: ``ProblemDetails`` 400 `unknown_widget` or `undeclared_event`.
    static func check(_ request: ActionRequest, against targets: [ActionTargets]) throws(ProblemDetails) {
        let declared = targets.compactMap { $0.events(of: request.widgetID) }
        guard !declared.isEmpty else {
            throw .unknownWidget(
                request,
                suggestion: NearMiss.closest(to: request.widgetID, among: targets.flatMap { $0.events.keys }))
        }
        guard declared.contains(where: { $0.contains(request.event) }) else {
            throw .undeclaredEvent(
                request, declared: declared.reduce(into: Set<String>()) { $0.formUnion($1) }.sorted())
        }
    }
}
