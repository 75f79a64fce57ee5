/// The lint rules the server (at load and reload) and `flow-bff check` apply to a decoded page, on top of the
/// decoder's own diagnostics. Rules and codes are listed in `docs/contract.md`.
public struct PageValidator: Sendable {
    /// Size budgets; every one is an `error` when exceeded.
    public struct Budgets: Sendable, Hashable {
        /// Deepest nesting of `children` below a top-level widget. Default 8.
        public var maximumChildDepth: Int = 8
        /// Widgets in one section, children included. Default 1,000.
        public var maximumWidgetsPerSection: Int = 1_000
        /// Sections in one page. Default 100,000 (pagination keeps serving cost flat).
        public var maximumSections: Int = 100_000
        /// Encoded bytes of one widget's `content`. Default 64 KiB.
        public var maximumContentBytes: Int = 65_536

        public init() {}
    }

    public var catalog: WidgetCatalog
    public var budgets: Budgets

    public init(catalog: WidgetCatalog = .standard, budgets: Budgets = Budgets()) {
        self.catalog = catalog
        self.budgets = budgets
    }

    /// Lint diagnostics for `page`, with paths rooted at `path` (e.g. `/page`).
    public func validate(_ page: PageModel, at path: JSONPointer = "/page") -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        if page.isEmpty, page.pagination != nil {
            diagnostics.append(
                .error(
                    "pagination_on_empty_page", path / "pagination",
                    "an empty page must not carry pagination: clients show .empty and never ask for more"))
        }
        if page.sections.count > budgets.maximumSections {
            diagnostics.append(
                .error(
                    "budget_exceeded", path / "sections",
                    "\(page.sections.count) sections exceed the budget of \(budgets.maximumSections)"))
        }
        for (index, widget) in page.header.enumerated() {
            check(widget, at: .pointer(path) / "header" / index, depth: 0, into: &diagnostics)
        }
        for (sectionIndex, section) in page.sections.enumerated() {
            check(section, at: .pointer(path) / "sections" / sectionIndex, into: &diagnostics)
        }
        for (index, widget) in page.footer.enumerated() {
            check(widget, at: .pointer(path) / "footer" / index, depth: 0, into: &diagnostics)
        }
        return diagnostics
    }

    /// Lint diagnostics for one section (also used for `nextPage` chunks and mutation payloads).
    public func validate(_ section: Section, at path: JSONPointer) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        check(section, at: .pointer(path), into: &diagnostics)
        return diagnostics
    }

    func check(_ section: Section, at path: LazyPointer, into diagnostics: inout [Diagnostic]) {
        if section.widgets.isEmpty {
            diagnostics.append(
                .warning("empty_section", path.pointer / "widgets", "section \"\(section.id)\" has no widgets"))
        }
        let count = section.widgets.reduce(0) { $0 + $1.subtreeCount }
        if count > budgets.maximumWidgetsPerSection {
            diagnostics.append(
                .error(
                    "budget_exceeded", path.pointer / "widgets",
                    "\(count) widgets exceed the per-section budget of \(budgets.maximumWidgetsPerSection)"))
        }
        for (index, widget) in section.widgets.enumerated() {
            check(widget, at: path / "widgets" / index, depth: 0, into: &diagnostics)
        }
        if case .section(let replacement) = section.compatibility.fallback {
            check(replacement, at: path / "fallback" / "section", into: &diagnostics)
        }
    }

    /// Lints what `mutation` brings (a page, sections, a widget); `path` points at the mutation.
    public func validate(_ mutation: PageMutation, at path: JSONPointer) -> [Diagnostic] {
        switch mutation {
        case .replacePage(let replacement):
            return validate(replacement, at: path / "page")
        case .appendSections(let sections), .prependSections(let sections):
            return sections.enumerated().flatMap { index, section in validate(section, at: path / "sections" / index) }
        case .replaceWidget(_, let widget):
            return validate(widget, at: path / "widget")
        case .removeWidget:
            return []
        }
    }

    /// Lints an action response: what its mutations bring, and its effects (`unsafe_url` deeplinks).
    public func validate(_ response: ActionResponse, at path: JSONPointer = .root) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for (index, mutation) in response.mutations.enumerated() {
            diagnostics += validate(mutation, at: path / "mutations" / index)
        }
        diagnostics += validate(effects: response.effects, at: path / "effects")
        return diagnostics
    }

    /// Lints the effects of an action response; `path` points at the `effects` array.
    public func validate(effects: [Action], at path: JSONPointer) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for (index, effect) in effects.enumerated() {
            if case .deeplink(let url) = effect, let problem = URLSafety.deeplinkProblem(url) {
                diagnostics.append(.error("unsafe_url", path / index / "url", problem))
            }
        }
        return diagnostics
    }

    /// Lint diagnostics for one widget subtree.
    public func validate(_ widget: Widget, at path: JSONPointer) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        check(widget, at: .pointer(path), depth: 0, into: &diagnostics)
        return diagnostics
    }

    func check(_ widget: Widget, at path: LazyPointer, depth: Int, into diagnostics: inout [Diagnostic]) {
        if depth > budgets.maximumChildDepth {
            diagnostics.append(
                .error(
                    "nesting_too_deep", path.pointer, widgetID: widget.id,
                    "children nest deeper than \(budgets.maximumChildDepth) levels"))
            return
        }
        if case .object(let object) = widget.content, object.count > 0,
            JSONWriter().maximumEncodedCount(of: widget.content) > budgets.maximumContentBytes
        {
            let size = JSONWriter().encodedCount(of: widget.content)
            if size > budgets.maximumContentBytes {
                diagnostics.append(
                    .error(
                        "budget_exceeded", path.pointer / "content", widgetID: widget.id,
                        "content is \(size) bytes, over the budget of \(budgets.maximumContentBytes)"))
            }
        }
        if let spec = catalog[widget.type] {
            switch spec.children {
            case .none where !widget.children.isEmpty:
                diagnostics.append(
                    .warning(
                        "unexpected_children", path.pointer / "children", widgetID: widget.id,
                        "\(widget.type) does not take children; clients ignore them"))
            case .required where widget.children.isEmpty:
                diagnostics.append(
                    .error(
                        "missing_children", path.pointer / "children", widgetID: widget.id,
                        "\(widget.type) is a container and needs at least one child"))
            default: break
            }
            // Sorting the events only pays off when one of them is reported.
            let unsupported = widget.actions.keys.contains { !spec.events.contains($0) }
            for event in unsupported ? widget.actions.keys.sorted() : [] where !spec.events.contains(event) {
                diagnostics.append(
                    .warning(
                        "unsupported_event", path.pointer / "actions" / event, widgetID: widget.id,
                        "\(widget.type) never fires \"\(event)\"; it fires \(spec.events.isEmpty ? "no events" : spec.events.joined(separator: ", "))"
                    ))
            }
        }
        checkURLs(widget, at: path, into: &diagnostics)
        if widget.isGeneratedID, !widget.actions.isEmpty {
            diagnostics.append(
                .warning(
                    "interactive_widget_without_id", path.pointer / "id", widgetID: widget.id,
                    "widget has actions but no backend id; its state key changes whenever the page layout does"))
        }
        for (index, child) in widget.children.enumerated() {
            check(child, at: path / "children" / index, depth: depth + 1, into: &diagnostics)
        }
        if case .widget(let replacement) = widget.compatibility.fallback {
            check(replacement, at: path / "fallback" / "widget", depth: depth, into: &diagnostics)
        }
    }

    /// `unsafe_url` for a deeplink on one of the widget's events, or a URL content field (`url`, `imageURL`, …)
    /// that is not safe to hand to a device (URLSafety.swift).
    func checkURLs(_ widget: Widget, at path: LazyPointer, into diagnostics: inout [Diagnostic]) {
        let hasDeeplink = widget.actions.values.contains { if case .deeplink = $0 { true } else { false } }
        for event in hasDeeplink ? widget.actions.keys.sorted() : [] {
            guard case .deeplink(let url)? = widget.actions[event], let problem = URLSafety.deeplinkProblem(url)
            else { continue }
            diagnostics.append(
                .error("unsafe_url", path.pointer / "actions" / event / "url", widgetID: widget.id, problem))
        }
        guard case .object(let content) = widget.content else { return }
        for member in content.members where URLSafety.isURLField(member.key) {
            guard case .string(let url) = member.value, let problem = URLSafety.imageProblem(url) else { continue }
            diagnostics.append(
                .error("unsafe_url", path.pointer / "content" / member.key, widgetID: widget.id, problem))
        }
    }
}
