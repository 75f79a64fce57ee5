import PageModel

/// An action in a page file that names something another file declares: an `api` action's name or an
/// `open_bottom_sheet`'s page. Collected once when the file is decoded, so the cross-file check of a load (and
/// of every reload) looks names up instead of walking every page again.
struct PageReference: Sendable {
    enum Target: Sendable {
        case action(String)
        case page(String)
    }

    var target: Target
    /// Where the name is in the file (`…/actions/tap/name`, `…/effects/0/pageID`).
    var path: JSONPointer
    var widgetID: String?

    /// The references of `page` and of the answers of `actions`, in file order.
    static func collect(_ page: PageModel, actions: [CatalogAction]) -> [PageReference] {
        var references: [PageReference] = []
        func add(_ action: Action, at path: JSONPointer, widgetID: String?) {
            switch action {
            case .api(let name, _):
                references.append(PageReference(target: .action(name), path: path / "name", widgetID: widgetID))
            case .openBottomSheet(let pageID, _):
                references.append(PageReference(target: .page(pageID), path: path / "pageID", widgetID: widgetID))
            default: break
            }
        }
        func walk(_ widgets: [Widget], at path: JSONPointer) {
            for (index, widget) in widgets.enumerated() {
                for event in widget.actions.keys.sorted() {
                    add(widget.actions[event]!, at: path / index / "actions" / event, widgetID: widget.id)
                }
                walk(widget.children, at: path / index / "children")
            }
        }
        walk(page.header, at: "/page/header")
        for (index, section) in page.sections.enumerated() {
            walk(section.widgets, at: JSONPointer("/page/sections") / index / "widgets")
        }
        walk(page.footer, at: "/page/footer")
        for action in actions {
            for (index, effect) in action.response.effects.enumerated() where action.rules.isEmpty {
                add(effect, at: JSONPointer("/server/actions") / action.name / "effects" / index, widgetID: nil)
            }
            for (ruleIndex, rule) in action.rules.enumerated() {
                guard case .response(let response, _) = rule.answer else { continue }
                let base =
                    !action.isMatched
                    ? JSONPointer("/server/actions") / action.name
                    : JSONPointer("/server/actions") / action.name / "responses" / ruleIndex / "response"
                for (index, effect) in response.effects.enumerated() {
                    add(effect, at: base / "effects" / index, widgetID: nil)
                }
            }
        }
        return references
    }

    /// The error when the target is not declared: an action not in `actionNames`, a page not in `pages`. With
    /// `remote` (a proxy's upstream serves what no local file declares), a warning that says so.
    func diagnostic(pages: Set<String>, actionNames: Set<String>, remote: Bool = false) -> Diagnostic? {
        let elsewhere = remote ? "; the proxy's upstream is asked for it" : ""
        switch target {
        case .action(let name) where !actionNames.contains(name):
            let hint = NearMiss.closest(to: name, among: actionNames).map { " (did you mean \($0)?)" } ?? ""
            return Diagnostic(
                severity: remote ? .warning : .error, code: "unknown_action_reference", path: path,
                widgetID: widgetID, message: "no page declares action \"\(name)\"\(hint)\(elsewhere)")
        case .page(let pageID) where !pages.contains(pageID):
            return Diagnostic(
                severity: remote ? .warning : .error, code: "unknown_page_reference", path: path, widgetID: widgetID,
                message: "there is no page \"\(pageID)\" in the catalog\(elsewhere)")
        default:
            return nil
        }
    }
}
