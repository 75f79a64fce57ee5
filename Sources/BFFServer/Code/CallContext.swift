import HTTPCore
import PageModel

/// What any Swift code answering a request — a page provider or an action handler — is told about the request.
/// ``PageRequestContext`` and ``ActionRequestContext`` carry it and expose its members as their own
/// (`context.session`, `context.requestID`, …).
public struct CallContext: Sendable {
    /// The request's header fields.
    public var headers: HTTPFields
    /// The request's session (`X-Flow-Session`, or the `flow_session` cookie), when sent.
    public var session: String?
    /// The client's `X-Flow-Client` declaration, when sent (the server resolves the answer for it anyway).
    public var capabilities: ClientCapabilities?
    /// The `Accept-Language` header, when sent (return strings to let the server negotiate the locale).
    public var acceptLanguage: String?
    /// The request id; pass it to upstream calls so logs correlate.
    public var requestID: String
    /// When the call's time is up (its registration's timeout from the start of the call); pass it on to upstream
    /// calls.
    public var deadline: ContinuousClock.Instant
    /// The server's logger, every line carrying this request's `requestID`.
    public var log: Logger
    /// The call's internal span when the request is traced (``traceContext`` continues from it).
    var span: Span? = nil
    /// The time the call spends in upstream calls (the access log's `upstreamMs`).
    var upstreamTimer: UpstreamTimer? = nil
}

extension CallContext {
    /// What Swift code given `timeout` is told about `request`, as its call starts.
    /// With the request traced, the call gets a span named `span` under the server span (`provider cart`).
    init(
        _ request: HTTPRequest, _ context: RequestContext, capabilities: ClientCapabilities?, timeout: Duration,
        log: Logger, span name: @autoclosure () -> String = "", attributes: @autoclosure () -> [SpanAttribute] = []
    ) {
        self.init(
            headers: request.headers, session: context.validSession, capabilities: capabilities,
            acceptLanguage: context.acceptLanguage, requestID: context.requestID,
            deadline: ContinuousClock.now + timeout, log: log.with("requestID", .string(context.requestID)),
            span: context.span?.child(name(), kind: .internal, attributes: attributes()), upstreamTimer: UpstreamTimer()
        )
    }
}
