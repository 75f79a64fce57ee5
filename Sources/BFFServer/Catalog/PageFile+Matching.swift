import PageModel

/// The parts of a page file that depend on the request: an action's `responses` with `when` conditions and
/// templated strings, and the page's `variants` (pages/README.md § Answers that depend on the request). All of it
/// is parsed and checked here, when the file loads, so `flow-bff check` reports a bad condition or placeholder
/// with the file and JSON path.
extension PageFile {
    static let matchedActionKeys: Set<String> = ["responses"]
    static let ruleKeys: Set<String> = ["when", "response", "problem", "data"]
    static let variantKeys: Set<String> = ["when", "scenario", "problem"]

    /// One declared action: a response envelope (possibly templated), or `{"responses": [{"when": …,
    /// "response": …} | {"when": …, "problem": …}, …]}` whose last entry, without `when`, is the default.
    static func action(
        _ name: String, _ value: JSONValue, at path: JSONPointer, page: PageModel, alternatives: [PageModel] = [],
        decoder: PageDecoder, validator: PageValidator, data: DataDocuments, diagnostics: inout [Diagnostic]
    ) -> CatalogAction? {
        guard ActionName.isValid(name) else {
            diagnostics.append(
                .error("invalid_action_name", path, "action names match \(ActionName.pattern), found \"\(name)\""))
            return nil
        }
        guard case .object(let object) = value, object["kind"] == nil, let list = object["responses"] else {
            guard
                let (response, template) = Self.response(
                    value, at: path, page: page, alternatives: alternatives, decoder: decoder, validator: validator,
                    diagnostics: &diagnostics)
            else { return nil }
            let rules = template.map { [ActionRule(when: nil, answer: .response(response, template: $0))] } ?? []
            return CatalogAction(name: name, pageID: page.id, response: response, rules: rules)
        }
        for member in object.members where !matchedActionKeys.contains(member.key) {
            diagnostics.append(
                .error(
                    "unknown_setting", path / member.key,
                    "an action is a response envelope or {\"responses\": [...]}; unknown member \(member.key)"))
        }
        guard case .array(let entries) = list, !entries.isEmpty else {
            diagnostics.append(
                .error("invalid_setting", path / "responses", "responses is a non-empty array of answers"))
            return nil
        }
        var rules: [ActionRule] = []
        let errorsBefore = diagnostics.count { $0.severity == .error }
        for (index, entry) in entries.enumerated() {
            let entryPath = path / "responses" / index
            guard case .object(let rule) = entry else {
                diagnostics.append(
                    .error("invalid_setting", entryPath, "an answer is {\"when\": …, \"response\" | \"problem\": …}"))
                continue
            }
            for member in rule.members where !ruleKeys.contains(member.key) {
                let hint = NearMiss.closest(to: member.key, among: ruleKeys).map { " (did you mean \($0)?)" } ?? ""
                diagnostics.append(.error("unknown_setting", entryPath / member.key, "unknown member\(hint)"))
            }
            let when = rule["when"].flatMap { condition(of: $0, at: entryPath / "when", diagnostics: &diagnostics) }
            let isLast = index == entries.count - 1
            if rule["when"] == nil, !isLast {
                diagnostics.append(
                    .error(
                        "unreachable_response", entryPath,
                        "an answer without when matches every request, so the answers after it never do; "
                            + "put the default last"))
            }
            if isLast, rule["when"] != nil {
                diagnostics.append(
                    .error(
                        "missing_default_response", entryPath,
                        "the last answer is the default and has no when (every request gets an answer)"))
            }
            switch (rule["response"], rule["problem"]) {
            case (let response?, nil):
                if let (decoded, template) = Self.response(
                    response, at: entryPath / "response", page: page, alternatives: alternatives, decoder: decoder,
                    validator: validator,
                    diagnostics: &diagnostics)
                {
                    var answer = ActionRule(when: when, answer: .response(decoded, template: template))
                    answer.dataChanges = Self.dataChanges(
                        rule["data"], at: entryPath / "data", data: data, diagnostics: &diagnostics)
                    rules.append(answer)
                }
            case (nil, let problem?):
                if rule["data"] != nil {
                    diagnostics.append(
                        .error(
                            "invalid_data_change", entryPath / "data",
                            "a problem answer changes no data; put data on a response"))
                }
                if let problem = declaredProblem(problem, at: entryPath / "problem", diagnostics: &diagnostics) {
                    rules.append(ActionRule(when: when, answer: .problem(problem)))
                }
            default:
                diagnostics.append(
                    .error("invalid_setting", entryPath, "an answer has exactly one of response and problem"))
            }
        }
        guard diagnostics.count(where: { $0.severity == .error }) == errorsBefore else { return nil }
        let responses = rules.compactMap { if case .response(let response, _) = $0.answer { response } else { nil } }
        guard
            let fallback = rules.last.flatMap({ rule in
                if case .response(let response, _) = rule.answer { response } else { nil }
            }) ?? responses.first
        else {
            // Only problems: the action still names a response for the widgets it brings (none).
            return CatalogAction(
                name: name, pageID: page.id, response: ActionResponse(mutations: [], effects: []), rules: rules,
                isMatched: true)
        }
        return CatalogAction(name: name, pageID: page.id, response: fallback, rules: rules, isMatched: true)
    }

    /// An answer's `data`: the changes it makes to the session's copy of the data (``DataChange``).
    static func dataChanges(
        _ value: JSONValue?, at path: JSONPointer, data: DataDocuments, diagnostics: inout [Diagnostic]
    ) -> [DataChange] {
        guard let value else { return [] }
        guard case .array(let entries) = value else {
            diagnostics.append(.error("invalid_data_change", path, "data is an array of changes"))
            return []
        }
        return entries.enumerated().compactMap {
            DataChange($1, at: path / $0, data: data, diagnostics: &diagnostics)
        }
    }

    /// A `when` object, or `nil` (with diagnostics) when it is invalid.
    static func condition(
        of value: JSONValue, at path: JSONPointer, queryOnly: Bool = false, diagnostics: inout [Diagnostic]
    ) -> RequestCondition? {
        do {
            return try RequestCondition(parsing: value, allowed: { !queryOnly || $0.isQuery })
        } catch {
            diagnostics.append(.error(error.code, JSONPointer(string: path.string + error.path.string), error.message))
            return nil
        }
    }

    /// A declared problem answer: `{"status": 404, "code": "product_not_found", "title": …, "detail": …}`.
    static func declaredProblem(_ value: JSONValue, at path: JSONPointer, diagnostics: inout [Diagnostic])
        -> ProblemDetails?
    {
        guard case .object(let object) = value else {
            diagnostics.append(
                .error("invalid_problem", path, "a problem is {\"status\", \"code\", \"title\", \"detail\"}"))
            return nil
        }
        for member in object.members where !["status", "code", "title", "detail"].contains(member.key) {
            diagnostics.append(
                .error("unknown_setting", path / member.key, "a problem has status, code, title, detail"))
        }
        guard let status = object["status"]?.intValue, (400...599).contains(status) else {
            diagnostics.append(.error("invalid_problem", path / "status", "status is an HTTP error status 400–599"))
            return nil
        }
        guard case .string(let code)? = object["code"], !code.isEmpty else {
            diagnostics.append(.error("invalid_problem", path / "code", "code is a non-empty string"))
            return nil
        }
        return ProblemDetails(
            status: status, code: code, title: object["title"]?.stringValue ?? "Mock answer \(code)",
            detail: object["detail"]?.stringValue ?? "")
    }

    /// `server.variants`: `[{"when": {"request.query.<name>": …}, "scenario": "<name>" | "problem": {…}}, …]`.
    /// A variant without `scenario` or `problem` serves the page itself. Scenario names are checked against the
    /// scenario files once all files are loaded (``PageCatalog/checkVariants()``).
    static func variants(_ value: JSONValue?, diagnostics: inout [Diagnostic]) -> [PageVariant] {
        guard let value else { return [] }
        let path = JSONPointer("/server/variants")
        guard case .array(let entries) = value else {
            diagnostics.append(.error("invalid_setting", path, "variants is an array of {\"when\": …, …}"))
            return []
        }
        var variants: [PageVariant] = []
        for (index, entry) in entries.enumerated() {
            let entryPath = path / index
            guard case .object(let object) = entry else {
                diagnostics.append(.error("invalid_setting", entryPath, "a variant is {\"when\": …, \"scenario\"?: …}"))
                continue
            }
            for member in object.members where !variantKeys.contains(member.key) {
                let hint = NearMiss.closest(to: member.key, among: variantKeys).map { " (did you mean \($0)?)" } ?? ""
                diagnostics.append(.error("unknown_setting", entryPath / member.key, "unknown member\(hint)"))
            }
            guard let whenValue = object["when"] else {
                diagnostics.append(
                    .error("invalid_setting", entryPath / "when", "a variant needs when (query parameters to match)"))
                continue
            }
            guard
                let when = condition(of: whenValue, at: entryPath / "when", queryOnly: true, diagnostics: &diagnostics)
            else { continue }
            switch (object["scenario"], object["problem"]) {
            case (nil, nil):
                variants.append(PageVariant(when: when, content: .page, path: entryPath))
            case (.string(let name)?, nil) where PageID.isValid(name):
                variants.append(PageVariant(when: when, content: .scenario(name), path: entryPath))
            case (_?, nil):
                diagnostics.append(
                    .error(
                        "invalid_setting", entryPath / "scenario",
                        "scenario names a scenario file <pageID>.<scenario>.json (letters, digits, _, -)"))
            case (nil, let problem?):
                if let problem = declaredProblem(problem, at: entryPath / "problem", diagnostics: &diagnostics) {
                    variants.append(PageVariant(when: when, content: .problem(problem), path: entryPath))
                }
            default:
                diagnostics.append(
                    .error("invalid_setting", entryPath, "a variant has at most one of scenario and problem"))
            }
        }
        return variants
    }
}
