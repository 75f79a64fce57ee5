import HTTPCore
import PageModel

extension BFFApplication {
    /// `POST /v1/actions/{name}`: the body is checked as an ``ActionRequest``, then against the page it names (the
    /// widget must be one a device could hold there and declare the event), then answered with the declared response
    /// (validated when the catalog loaded), resolved for the client like the page.
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
        guard ActionName.isValid(name), let declared = snapshot.catalog.actions[name],
            let prepared = snapshot.actionBodies[name]
        else {
            throw ProblemDetails.unknownAction(
                name, suggestion: NearMiss.closest(to: name, among: snapshot.catalog.actions.keys))
        }
        if let documents = try lookup.actionDocuments(action.pageID, request, in: self, snapshot: snapshot) {
            try ActionTargets.check(action, against: documents.map { snapshot.actionTargets(of: $0) })
        }
        lookup.actionAnswered(declared, action, request, in: self, snapshot: snapshot)
        guard let page = snapshot.catalog.pages[declared.pageID] else {
            return .now(.prepared(prepared, headers: ["Cache-Control": "no-store"]))
        }
        // A client that declares its capabilities (or a localized page) gets the answer resolved like the page,
        // per request: actions are not cached by clients and are far rarer than page loads.
        let variant = try ClientVariant.of(request, page: page)
        guard let resolver = variant.resolver(for: page) else {
            return .now(.prepared(prepared, headers: ["Cache-Control": "no-store"]))
        }
        let (response, degradations) = resolver.resolve(declared.response)
        var headers = page.responseHeaders(locale: variant.locale)
        headers.set("Cache-Control", "no-store")
        let bytes = Representation.encode(
            .actionResponse(response), degradations: variant.capabilities == nil ? nil : degradations,
            locale: page.strings.map { variant.locale ?? $0.defaultLocale })
        return .now(.json(bytes, headers: headers))
    }
}
