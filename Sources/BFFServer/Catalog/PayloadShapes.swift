import PageModel

/// What the payload of each api action can hold, gathered from every widget that fires it: the widgets of the
/// pages and scenarios, their fallbacks, and the widgets and effects of every declared answer. A device sends the
/// payload its widget declares, so a `request.payload.<path>` that no such payload has is always absent — a typo
/// (`orderId` for `orderID`) that would otherwise make a `when` never match or a placeholder insert nothing.
struct PayloadShapes {
    /// Action name → the dotted member paths its payloads declare; an array's elements are `*`.
    private var paths: [String: Set<String>] = [:]
    /// Action name → paths whose value a placeholder fills (in an answer's widget): anything below them may be sent.
    private var open: [String: Set<String>] = [:]
    /// The actions some widget or effect fires.
    private(set) var fired: Set<String> = []

    mutating func add(_ page: PageModel) {
        add(page.header)
        for section in page.sections { add(section) }
        add(page.footer)
    }

    mutating func add(_ response: ActionResponse) {
        for mutation in response.mutations {
            switch mutation {
            case .replacePage(let page): add(page)
            case .appendSections(let sections), .prependSections(let sections):
                for section in sections { add(section) }
            case .replaceWidget(_, let widget): add([widget])
            case .removeWidget: break
            }
        }
        for effect in response.effects { add(effect) }
    }

    private mutating func add(_ section: Section) {
        add(section.widgets)
        if case .section(let replacement) = section.compatibility.fallback { add(replacement) }
    }

    private mutating func add(_ widgets: [Widget]) {
        for widget in widgets {
            for action in widget.actions.values { add(action) }
            add(widget.children)
            if case .widget(let replacement) = widget.compatibility.fallback { add([replacement]) }
        }
    }

    private mutating func add(_ action: Action) {
        guard case .api(let name, let payload) = action else { return }
        fired.insert(name)
        if let payload { collect(payload, prefix: [], action: name) }
    }

    private mutating func collect(_ value: JSONValue, prefix: [String], action: String) {
        switch value {
        case .object(let object):
            for member in object.members {
                let path = prefix + [member.key]
                paths[action, default: []].insert(path.joined(separator: "."))
                collect(member.value, prefix: path, action: action)
            }
        case .array(let items):
            let path = prefix + ["*"]
            if !items.isEmpty { paths[action, default: []].insert(path.joined(separator: ".")) }
            for item in items { collect(item, prefix: path, action: action) }
        case .string(let text) where text.contains("{{"):
            open[action, default: []].insert(prefix.joined(separator: "."))
        default:
            break
        }
    }

    /// `nil` when a payload of `action` can hold `path` (array indices match `*`); otherwise why it cannot, with
    /// the member meant when one is close.
    func problem(with path: [String], action: String) -> String? {
        let shape = path.map { Int($0) != nil ? "*" : $0 }.joined(separator: ".")
        // A numeric segment is an array index, or an object key such as "2024".
        let literal = path.joined(separator: ".")
        if paths[action]?.contains(shape) == true || paths[action]?.contains(literal) == true { return nil }
        if open[action]?.contains(where: { $0.isEmpty || shape == $0 || shape.hasPrefix($0 + ".") }) == true {
            return nil
        }
        let name = RequestValueName.payload(path).description
        guard let declared = paths[action], !declared.isEmpty else {
            return "no widget that fires \(action) sends a payload, so \(name) is always absent"
        }
        let hint = NearMiss.closest(to: shape, among: declared).map { " (did you mean request.payload.\($0)?)" } ?? ""
        return "no widget that fires \(action) sends a payload with \(name)\(hint), so it is always absent; "
            + "payloads hold: \(declared.sorted().joined(separator: ", "))"
    }
}

extension PageCatalog {
    /// Warns (`unknown_payload_path`) about every `request.payload.<path>` in an action's `when` conditions and
    /// templates that no payload of the widgets firing the action holds. Actions no widget fires are not judged.
    mutating func checkPayloadPaths() {
        var shapes = PayloadShapes()
        for page in pages.values { shapes.add(page.page) }
        for byName in scenarios.values {
            for scenario in byName.values { if case .page(let page) = scenario.content { shapes.add(page.page) } }
        }
        for action in actions.values {
            for response in action.responses { shapes.add(response) }
        }
        for name in actions.keys.sorted() where shapes.fired.contains(name) {
            let action = actions[name]!
            guard let file = pages[action.pageID]?.file else { continue }
            let base = JSONPointer("/server/actions") / name
            for (index, rule) in action.rules.enumerated() {
                var uses: [(name: RequestValueName, path: JSONPointer)] = []
                for test in rule.when?.tests ?? [] {
                    uses.append((test.name, base / "responses" / index / "when" / test.name.description))
                }
                if case .response(_, let template?) = rule.answer {
                    let root = action.isMatched ? base / "responses" / index / "response" : base
                    for string in template.templatedStrings {
                        for used in string.names {
                            uses.append((used, JSONPointer(string: root.string + string.path.string)))
                        }
                    }
                }
                for use in uses {
                    guard case .payload(let path) = use.name, !path.isEmpty,
                        let message = shapes.problem(with: path, action: name)
                    else { continue }
                    diagnostics.append(
                        FileDiagnostic(file: file, diagnostic: .warning("unknown_payload_path", use.path, message)))
                }
            }
        }
    }
}
