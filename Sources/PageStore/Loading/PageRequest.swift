import PageModel

/// One request a ``PageStore`` (or an ``ActionDispatcher``) asks its ``PageLoader`` to perform.
public struct PageRequest: Sendable, Hashable {
    /// The seed's loader kinds: `initial`, `refresh`, `nextPage(postback:)`, `action`.
    public enum Kind: Sendable, Hashable {
        /// First paint, and `retry()`: `GET /v1/pages/{pageID}`.
        case initial
        /// Pull to refresh: `GET /v1/pages/{pageID}` with `Cache-Control: no-cache`.
        case refresh
        /// The next chunk of sections: `GET /v1/pages/{pageID}/next?postback=…`.
        case nextPage(postback: String)
        /// An api action round trip: `POST /v1/actions/{name}`.
        case action(ActionRequest)
    }

    public var pageID: String
    /// Page parameters, sent as the query string of `initial` and `refresh` requests.
    public var parameters: [String: String]
    public var kind: Kind

    public init(pageID: String, parameters: [String: String] = [:], kind: Kind) {
        self.pageID = pageID
        self.parameters = parameters
        self.kind = kind
    }
}

/// The body of an api action: `{"pageID", "widgetID", "event", "value"?, "payload"?}` sent to
/// `POST /v1/actions/{name}`.
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

    public init(
        name: String, pageID: String, widgetID: String, event: String, value: JSONValue? = nil,
        payload: JSONValue? = nil
    ) {
        self.name = name
        self.pageID = pageID
        self.widgetID = widgetID
        self.event = event
        self.value = value
        self.payload = payload
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
}
