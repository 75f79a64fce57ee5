import HTTPCore
import PageModel

/// Computes the answer to an api action in Swift, per request — the counterpart of a page provider. Registered
/// for an action name (or a `prefix.*` pattern) with ``ActionHandlers/register(_:options:_:)``. The answer is
/// checked by the codec and the lint rules before it is sent (an invalid one is a logged 500
/// `invalid_action_response` naming the lint codes; its diagnostics are in the log, and in the body in mock mode)
/// and resolved for the client's capabilities and locale like a
/// page. Throw a ``PageProviderError`` for a deliberate problem+json answer (an `UpstreamError` through
/// ``PageProviderError/upstream(_:)`` becomes 502/504); anything else is a logged 500.
public typealias ActionHandler = @Sendable (ActionRequestContext) async throws -> ActionResponse

/// What an action handler knows about the request.
public struct ActionRequestContext: Sendable {
    /// The checked action request: name, page, widget (one a device can hold on that page), event, value, payload.
    public var request: ActionRequest
    /// The request's query items.
    public var query: [String: String]
    /// The request's header fields.
    public var headers: HTTPFields
    /// The `X-Flow-Session` header, when sent.
    public var session: String?
    /// The client's `X-Flow-Client` declaration, when sent (the server resolves the answer for it anyway).
    public var capabilities: ClientCapabilities?
    /// The `Accept-Language` header, when sent.
    public var acceptLanguage: String?
    public var requestID: String
    /// When the handler's time is up (its ``ActionHandlerOptions/timeout`` from the start of the call); pass it on
    /// to upstream calls.
    public var deadline: ContinuousClock.Instant
    /// The server's logger, every line carrying this request's `requestID`.
    public var log: Logger
}

/// Settings of one action handler.
public struct ActionHandlerOptions: Sendable, Hashable {
    /// How long the handler may take before the request is answered 504 `action_timeout`. Default 5 s.
    public var timeout: Duration

    public init(timeout: Duration = .seconds(5)) {
        self.timeout = timeout
    }
}
