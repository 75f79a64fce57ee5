import HTTPCore
import PageModel

/// The body of `POST /v1/actions/{name}`: `{"pageID", "widgetID", "event", "value"?, "payload"?}`.
struct ActionRequest: Sendable, Hashable {
    var pageID: String
    var widgetID: String
    var event: String
    var value: JSONValue?
    var payload: JSONValue?

    static let events: Set<String> = [WidgetEvent.tap, WidgetEvent.change]

    init(json: JSONValue) throws(ProblemDetails) {
        guard case .object(let object) = json else {
            throw .invalidRequest(
                .root, "The body is an object {\"pageID\", \"widgetID\", \"event\", \"value\"?, \"payload\"?}.")
        }
        func string(_ key: String) throws(ProblemDetails) -> String {
            guard let value = object[key] else { throw .invalidRequest(JSONPointer.root / key, "\(key) is required.") }
            guard case .string(let string) = value, !string.isEmpty else {
                throw .invalidRequest(
                    JSONPointer.root / key, "\(key) must be a non-empty string, found \(value.typeName).")
            }
            return string
        }
        pageID = try string("pageID")
        guard PageID.isValid(pageID) else { throw .invalidRequest("/pageID", "pageID must match \(PageID.pattern).") }
        widgetID = try string("widgetID")
        event = try string("event")
        guard Self.events.contains(event) else {
            throw .invalidRequest("/event", "event must be \"tap\" or \"change\", found \"\(event)\".")
        }
        value = object["value"]
        payload = object["payload"]
    }
}

extension BFFApplication {
    /// `POST /v1/actions/{name}` — the declared action response (validated when the catalog loaded).
    func serveAction(_ request: HTTPRequest) throws -> HTTPResponse {
        let snapshot = snapshot
        let name = request.pathParameters["name"] ?? ""
        let body = try jsonBody(of: request)
        _ = try ActionRequest(json: body)
        guard ActionName.isValid(name), let prepared = snapshot.actionBodies[name] else {
            throw ProblemDetails.unknownAction(
                name, suggestion: NearMiss.closest(to: name, among: snapshot.actionBodies.keys))
        }
        guard let action = snapshot.catalog.actions[name], let page = snapshot.catalog.pages[action.pageID] else {
            return .prepared(prepared, headers: ["Cache-Control": "no-store"])
        }
        // A client that declares its capabilities (or a localized page) gets the answer resolved like the page,
        // per request: actions are not cached by clients and are far rarer than page loads.
        let variant = try ClientVariant.of(request, page: page)
        guard let resolver = variant.resolver(for: page) else {
            return .prepared(prepared, headers: ["Cache-Control": "no-store"])
        }
        let (response, degradations) = resolver.resolve(action.response)
        var headers = page.responseHeaders(locale: variant.locale)
        headers.set("Cache-Control", "no-store")
        let bytes = ServedEnvelope.encode(
            .actionResponse(response), degradations: variant.capabilities == nil ? nil : degradations,
            locale: page.strings.map { variant.locale ?? $0.defaultLocale })
        return .json(bytes, headers: headers)
    }
}
