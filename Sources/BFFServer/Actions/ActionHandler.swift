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

/// What an action handler knows about the request: the checked action and its query, and the ``CallContext`` every
/// Swift answer gets (`context.session`, `context.requestID`, `context.deadline`, `context.log`, …).
@dynamicMemberLookup
public struct ActionRequestContext: Sendable {
    /// The checked action request: name, page, widget (one a device can hold on that page), event, value, payload.
    public var request: ActionRequest
    /// The request's query items.
    public var query: [String: String]
    public var call: CallContext

    public subscript<Value>(dynamicMember keyPath: KeyPath<CallContext, Value>) -> Value { call[keyPath: keyPath] }
}

/// Settings of one action handler.
public struct ActionHandlerOptions: Sendable, Hashable {
    /// How long the handler may take before the request is answered 504 `action_timeout`. Default 5 s.
    public var timeout: Duration

    public init(timeout: Duration = .seconds(5)) {
        self.timeout = timeout
    }
}
