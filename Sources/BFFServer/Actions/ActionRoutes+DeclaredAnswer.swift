import HTTPCore
import PageModel

extension ActionRoutes {
    /// The answer a page file declares for `action` (`server.actions` in pages/README.md): a fixed response,
    /// prepared once per catalog; or the first of its `responses` whose `when` the request meets, with its
    /// `{{…}}` placeholders filled from the request and the result checked by the codec.
    /// - Throws: the matched answer's problem, if it is one. When a filled template is not a valid action
    ///   response: 422 `invalid_action_value` naming the request member whose value made it invalid (every error
    ///   lies in what a placeholder inserted), else 500 `invalid_action_response` (the page file's fault) — neither
    ///   names a path inside the answer; the log line does (and, for the 500 in mock mode, `diagnostics`).
    ///   A filled `replaceWidget` / `removeWidget` target that no widget of `targets` has is such an error
    ///   (`mutation_target_not_found`): a device could not apply the answer.
    /// - Parameter targets: the widgets a device can hold on the request's page, when the page is known.
    func declaredAnswer(
        _ declared: CatalogAction, to action: ActionRequest, _ request: HTTPRequest, _ context: RequestContext,
        snapshot: CatalogSnapshot, targets: [ActionTargets]?
    ) throws -> ActionAnswer {
        guard !declared.rules.isEmpty else {
            return ActionAnswer(response: declared.response, prepared: snapshot.actionBodies[declared.name])
        }
        let facts = requestFacts(action, request, context)
        guard let rule = declared.rules.first(where: { $0.when?.matches(facts) ?? true }) else {
            return ActionAnswer(response: declared.response, prepared: nil)
        }
        let dataUpdate = rule.dataChanges.isEmpty ? nil : DataUpdate(changes: rule.dataChanges, facts: facts)
        switch rule.answer {
        case .problem(let problem):
            throw problem
        case .response(let response, nil):
            return ActionAnswer(response: response, prepared: nil, dataUpdate: dataUpdate)
        case .response(_, let template?):
            do {
                let response = try Self.filled(template, facts)
                if let targets { try Self.checkFilledTargets(of: response, template, page: action.pageID, in: targets) }
                return ActionAnswer(response: response, prepared: nil, dataUpdate: dataUpdate)
            } catch {
                throw problem(for: error, action: action, requestID: context.requestID)
            }
        }
    }

    /// The problem answered for a filled template that is not a valid action response, logged with its diagnostics.
    func problem(for error: FilledAnswerError, action: ActionRequest, requestID: String) -> ProblemDetails {
        let name = action.name
        let fields: KeyValuePairs<String, JSONValue> = [
            "requestID": .string(requestID), "action": .string(name),
            "diagnostics": .string(error.errors.map(\.description).joined(separator: "; ")),
        ]
        guard let culprit = error.culprits.first else {
            log.error("invalid declared action response", fields)
            return ProblemDetails(
                .invalidActionResponse,
                detail:
                    "The page file's answer of \(name) is not a valid action response (\(error.codes)); "
                    + "flow-bff check and the server log say where. The request ID is \(requestID).",
                diagnostics: showsDiagnostics ? error.errors : nil)
        }
        log.info("action value refused", fields)
        let members = error.culprits.map { "\($0.requestMember) (\(FilledAnswerError.kind(of: $0, in: action)))" }
        // A missing target is named: the widget id is what the author looks for in the page.
        let targets = error.errors.filter { $0.code == Self.targetNotFound }.map(\.message)
        let named = targets.isEmpty ? "" : " (" + targets.joined(separator: "; ") + ")"
        return ProblemDetails(
            .invalidActionValue,
            detail:
                "The answer of \(name) cannot be built from \(members.joined(separator: ", ")) as sent: "
                + "\(error.codes)\(named).",
            path: culprit.bodyPointer?.string)
    }

    static let targetNotFound = "mutation_target_not_found"

    /// The ids of `widgets` and of their children, at every depth.
    static func widgetIDs(in widgets: [Widget]) -> [String] {
        widgets.flatMap { [$0.id] + widgetIDs(in: $0.children) }
    }

    /// Checks every templated `replaceWidget` / `removeWidget` target of a filled answer against the widgets a
    /// device can hold on `page` (the load-time check covers the fixed ones).
    /// - Throws: ``FilledAnswerError`` with a `mutation_target_not_found` error at each missing target's `/id`.
    static func checkFilledTargets(
        of response: ActionResponse, _ template: ResponseTemplate, page: String, in targets: [ActionTargets]
    ) throws(FilledAnswerError) {
        var errors: [Diagnostic] = []
        // Widgets an earlier mutation of this answer brings can be targeted by a later one.
        var brought: Set<String> = []
        for (index, mutation) in response.mutations.enumerated() {
            defer { brought.formUnion(Self.widgetIDs(in: mutation.broughtWidgets)) }
            let path = JSONPointer.root / "mutations" / index / "id"
            guard let id = mutation.targetID, !template.insertedValues(at: path).isEmpty, !brought.contains(id),
                !targets.contains(where: { $0.holds(id) })
            else { continue }
            errors.append(.error(targetNotFound, path, "no widget \"\(id)\" on page \"\(page)\""))
        }
        guard errors.isEmpty else { throw FilledAnswerError(errors: errors, template: template) }
    }

    /// What conditions and templates read from an action request.
    func requestFacts(_ action: ActionRequest, _ request: HTTPRequest, _ context: RequestContext) -> RequestFacts {
        RequestFacts(
            action: action, query: lookup.parameters(of: request), headers: request.headers,
            sessionID: context.validSession, scenario: lookup.scenario(for: action.pageID, context: context))
    }

    /// `template` filled from `facts`, decoded and checked like a declared response.
    /// - Throws: ``FilledAnswerError`` with the error diagnostics and the request values they lie in.
    static func filled(_ template: ResponseTemplate, _ facts: RequestFacts) throws(FilledAnswerError)
        -> ActionResponse
    {
        let json = template.render(facts)
        let decoder = PageDecoder(catalog: template.widgets)
        let validator = PageValidator(catalog: template.widgets)
        var diagnostics: [Diagnostic] = []
        var response: ActionResponse?
        do {
            let decoded = try decoder.decodeEnvelope(json: json)
            diagnostics = decoded.diagnostics
            if case .actionResponse(let decodedResponse) = decoded.value { response = decodedResponse }
        } catch {
            diagnostics.append(error.diagnostic)
        }
        if let response { diagnostics += validator.validate(response) }
        var errors = diagnostics.filter { $0.severity == .error }
        guard let response, errors.isEmpty else {
            if errors.isEmpty {
                errors = [.error("unexpected_kind", JSONPointer.root / "kind", "not an actionResponse envelope")]
            }
            throw FilledAnswerError(errors: errors, template: template)
        }
        return response
    }
}

/// A filled template that is not a valid action response. The template's fixed parts were checked when the page
/// file loaded (Catalog/PageFile.swift), so an error inside what a placeholder inserted is the request's doing (a
/// 422 naming that request member); any other error is the page file's (a 500).
struct FilledAnswerError: Error, Sendable {
    var errors: [Diagnostic]
    /// The request values whose inserted text every error lies in, in order; empty when some error lies elsewhere.
    var culprits: [RequestValueName]

    /// Diagnostics about a whole subtree, reported at its root: inserted values inside it explain them.
    static let subtreeCodes: Set<String> = ["budget_exceeded", "nesting_too_deep"]

    init(errors: [Diagnostic], template: ResponseTemplate) {
        self.errors = errors
        var culprits: [RequestValueName] = []
        for error in errors {
            var names = template.insertedValues(at: error.path)
            if names.isEmpty && Self.subtreeCodes.contains(error.code) {
                names = template.insertedValues(under: error.path)
            }
            guard !names.isEmpty else {
                culprits = []
                break
            }
            for name in names where !culprits.contains(name) { culprits.append(name) }
        }
        self.culprits = culprits
    }

    /// The distinct diagnostic codes, for a problem's detail (codes are stable and name no path).
    var codes: String {
        var codes: [String] = []
        for error in errors where !codes.contains(error.code) { codes.append(error.code) }
        return codes.joined(separator: ", ")
    }

    /// What the request sent for `name`, as a JSON type name (`string`, `absent`), never the value itself.
    static func kind(of name: RequestValueName, in action: ActionRequest) -> String {
        guard name.bodyPointer != nil else { return "text" }
        let facts = RequestFacts(action: action, query: [:], headers: HTTPFields(), sessionID: nil, scenario: nil)
        return facts.value(name)?.typeName ?? "absent"
    }
}
