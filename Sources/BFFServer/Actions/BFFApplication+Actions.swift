import HTTPCore
import PageModel

extension BFFApplication {
    /// `POST /v1/actions/{name}`: the body is checked as an ``ActionRequest``, then against the page it names (the
    /// widget must be one a device could hold there and declare the event), then answered with the page file's
    /// declared answer (Actions/BFFApplication+DeclaredAnswer.swift), resolved for the client like the page.
    func serveAction(_ request: HTTPRequest, _ requestID: String) throws -> Answer {
        let snapshot = snapshot
        let name = request.pathParameters["name"] ?? ""
        let body = try jsonBody(of: request)
        let action: ActionRequest
        do {
            action = try ActionRequest(name: name, body: body)
        } catch {
            throw ProblemDetails.invalidRequest(error.path, error.message)
        }
        guard ActionName.isValid(name), let declared = snapshot.catalog.actions[name] else {
            throw ProblemDetails.unknownAction(
                name, suggestion: NearMiss.closest(to: name, among: snapshot.catalog.actions.keys))
        }
        if let documents = try lookup.actionDocuments(action.pageID, request, in: self, snapshot: snapshot) {
            try ActionTargets.check(action, against: documents.map { snapshot.actionTargets(of: $0) })
        }
        let answer = try declaredAnswer(declared, to: action, request, snapshot: snapshot)
        lookup.actionAnswered(answer.response, action, request, in: self, snapshot: snapshot)
        return .now(try actionResponse(answer, declaredBy: snapshot.catalog.pages[declared.pageID], request))
    }

    /// The response carrying `answer`: its prepared body when it is fixed and the client declared nothing;
    /// otherwise resolved for the client's capabilities and locale (like the page declaring the action) and encoded
    /// per request — action answers are not cached by clients and are far rarer than page loads.
    func actionResponse(_ answer: ActionAnswer, declaredBy page: CatalogPage?, _ request: HTTPRequest) throws
        -> HTTPResponse
    {
        let variant = try page.map { try ClientVariant.of(request, page: $0) } ?? .plain
        guard let page, let resolver = variant.resolver(for: page) else {
            let body = answer.prepared ?? Representation.prepare(.actionResponse(answer.response))
            return .prepared(body, headers: ["Cache-Control": "no-store"])
        }
        let (response, degradations) = resolver.resolve(answer.response)
        var headers = page.responseHeaders(locale: variant.locale)
        headers.set("Cache-Control", "no-store")
        let bytes = Representation.encode(
            .actionResponse(response), degradations: variant.capabilities == nil ? nil : degradations,
            locale: page.strings.map { variant.locale ?? $0.defaultLocale })
        return .json(bytes, headers: headers)
    }
}

/// The answer to one api action request, before client resolution.
struct ActionAnswer: Sendable {
    var response: ActionResponse
    /// The encoded envelope when the answer is fixed (prepared once per catalog); `nil` for a computed answer.
    var prepared: PreparedBody?
}
