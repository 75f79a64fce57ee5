import HTTPCore

/// The W3C Trace Context an upstream call is made in: the `traceparent` (and `tracestate`) it sends.
///
/// With tracing on (docs/operations.md, "Tracing") and the request sampled, it is the context of the provider's or
/// action handler's span, and ``UpstreamClient`` records a client span per attempt under it and sends that span's
/// id. With tracing off, or for a request the sampler dropped, it is the incoming context forwarded unchanged. An
/// invalid `traceparent` is not forwarded (W3C Trace Context § 3.2: a receiver that cannot parse it ignores it);
/// `tracestate` travels only with a valid `traceparent`.
public struct TraceContext: Sendable, Hashable {
    public var traceparent: String
    public var tracestate: String?
    /// The span upstream calls are children of, when this request is traced.
    let span: Span?

    /// The context in `headers`, or `nil` when there is no valid `traceparent`.
    public init?(headers: HTTPFields) {
        guard let traceparent = headers["traceparent"], TraceParent(traceparent) != nil else { return nil }
        self.traceparent = traceparent
        self.tracestate = headers["tracestate"].flatMap { $0.utf8.count <= 512 ? $0 : nil }
        span = nil
    }

    /// The context of `span`: its trace id, its id as the parent, and the trace's `tracestate`.
    init(span: Span) {
        traceparent = span.traceParent.description
        tracestate = span.traceState
        self.span = span
    }

    /// The parsed ``traceparent``.
    public var traceParent: TraceParent? { TraceParent(traceparent) }

    public static func == (left: TraceContext, right: TraceContext) -> Bool {
        left.traceparent == right.traceparent && left.tracestate == right.tracestate
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(traceparent)
        hasher.combine(tracestate)
    }
}

extension CallContext {
    /// The request's trace context, to pass to ``UpstreamClient`` calls (`context.traceContext`): the provider's or
    /// handler's span when the request is traced, else the incoming `traceparent` unchanged.
    public var traceContext: TraceContext? { span?.traceContext ?? TraceContext(headers: headers) }
}
