/// The body of an api action, `POST /v1/actions/{name}`: `{"pageID", "widgetID", "event", "value"?, "payload"?}`.
/// The device builds it (PageStore's dispatcher, the contract verifier), the server decodes and checks it.
public struct ActionRequest: Sendable, Hashable {
    /// The action name, the last path segment of the route.
    public var name: String
    public var pageID: String
    public var widgetID: String
    /// `tap` or `change` (``WidgetEvent``).
    public var event: String
    /// The widget's new value, for `change` events.
    public var value: JSONValue?
    /// The `payload` the server put on the action, echoed back unchanged.
    public var payload: JSONValue?
    /// Sent as the `Idempotency-Key` header, not in the body: one key per round trip, reused by its retries, so
    /// the server answers a retried request once (docs/actions.md). `nil` sends none.
    public var idempotencyKey: String?

    /// The events a request may name.
    public static let events: Set<String> = [WidgetEvent.tap, WidgetEvent.change]

    public init(
        name: String, pageID: String, widgetID: String, event: String, value: JSONValue? = nil,
        payload: JSONValue? = nil, idempotencyKey: String? = nil
    ) {
        self.name = name
        self.pageID = pageID
        self.widgetID = widgetID
        self.event = event
        self.value = value
        self.payload = payload
        self.idempotencyKey = idempotencyKey
    }

    /// Decodes the body of a request to the action `name`.
    /// - Throws: ``ContractError`` `invalid_request` with the JSON Pointer of the offending member.
    public init(name: String, body: JSONValue) throws(ContractError) {
        guard case .object(let object) = body else {
            throw Self.invalid(
                .root, "The body is an object {\"pageID\", \"widgetID\", \"event\", \"value\"?, \"payload\"?}.")
        }
        func string(_ key: String) throws(ContractError) -> String {
            guard let value = object[key] else { throw Self.invalid(.root / key, "\(key) is required.") }
            guard case .string(let string) = value, !string.isEmpty else {
                throw Self.invalid(.root / key, "\(key) must be a non-empty string, found \(value.typeName).")
            }
            return string
        }
        let pageID = try string("pageID")
        guard PageID.isValid(pageID) else { throw Self.invalid("/pageID", "pageID must match \(PageID.pattern).") }
        let widgetID = try string("widgetID")
        let event = try string("event")
        guard Self.events.contains(event) else {
            throw Self.invalid("/event", "event must be \"tap\" or \"change\", found \"\(event)\".")
        }
        self.init(
            name: name, pageID: pageID, widgetID: widgetID, event: event, value: object["value"],
            payload: object["payload"])
    }

    /// The JSON request body, keys in a fixed order.
    public var body: JSONValue {
        var object = JSONObject()
        object["pageID"] = .string(pageID)
        object["widgetID"] = .string(widgetID)
        object["event"] = .string(event)
        if let value { object["value"] = value }
        if let payload { object["payload"] = payload }
        return .object(object)
    }

    private static func invalid(_ path: JSONPointer, _ message: String) -> ContractError {
        ContractError(code: "invalid_request", path: path, message: message)
    }
}
