import HTTPCore
import PageModel

extension BFFApplication {
    /// The answer a page file declares for `action` (`server.actions` in pages/README.md): a fixed response,
    /// prepared once per catalog; or the first of its `responses` whose `when` the request meets, with its
    /// `{{…}}` placeholders filled from the request and the result checked by the codec.
    /// - Throws: the matched answer's problem, if it is one; 500 `invalid_action_response` when a filled template
    ///   is not a valid action response (its diagnostics say why).
    func declaredAnswer(
        _ declared: CatalogAction, to action: ActionRequest, _ request: HTTPRequest, snapshot: CatalogSnapshot
    ) throws -> ActionAnswer {
        guard !declared.rules.isEmpty else {
            return ActionAnswer(response: declared.response, prepared: snapshot.actionBodies[declared.name])
        }
        let facts = requestFacts(action, request)
        guard let rule = declared.rules.first(where: { $0.when?.matches(facts) ?? true }) else {
            return ActionAnswer(response: declared.response, prepared: nil)
        }
        switch rule.answer {
        case .problem(let problem):
            throw problem
        case .response(let response, nil):
            return ActionAnswer(response: response, prepared: nil)
        case .response(_, let template?):
            return ActionAnswer(response: try Self.filled(template, facts, action: declared.name), prepared: nil)
        }
    }

    /// What conditions and templates read from an action request.
    func requestFacts(_ action: ActionRequest, _ request: HTTPRequest) -> RequestFacts {
        let sessionID = try? MockRequestContext.sessionID(request)
        let scenario = lookup.scenario(for: action.pageID, request, sessionID: sessionID ?? nil)
        return RequestFacts(
            action: action, query: lookup.parameters(of: request), headers: request.headers,
            sessionID: sessionID ?? nil, scenario: scenario)
    }

    /// `template` filled from `facts`, decoded and checked like a declared response.
    static func filled(_ template: ResponseTemplate, _ facts: RequestFacts, action name: String) throws
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
        for (index, mutation) in (response?.mutations ?? []).enumerated() {
            let path = JSONPointer("/mutations") / index
            switch mutation {
            case .replacePage(let page): diagnostics += validator.validate(page, at: path / "page")
            case .appendSections(let sections), .prependSections(let sections):
                for (sectionIndex, section) in sections.enumerated() {
                    diagnostics += validator.validate(section, at: path / "sections" / sectionIndex)
                }
            case .replaceWidget(_, let widget): diagnostics += validator.validate(widget, at: path / "widget")
            case .removeWidget: break
            }
        }
        let errors = diagnostics.filter { $0.severity == .error }
        guard let response, errors.isEmpty else {
            throw ProblemDetails(
                status: 500, code: "invalid_action_response", title: "Invalid action response",
                detail:
                    "The answer of \(name), filled from this request, is not a valid action response: "
                    + (errors.first.map { "\($0.path): \($0.message)" } ?? "not an actionResponse envelope"),
                diagnostics: errors)
        }
        return response
    }
}
