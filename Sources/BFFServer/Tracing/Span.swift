import PageModel

/// A span being recorded: its ids, name, start and attributes so far. The code that starts a span ends it
/// (``end(name:status:attributes:)`` hands the finished ``SpanData`` to the tracer's sink); a span never ended is
/// never exported. A class, so the contexts that carry one (``RequestContext``, ``CallContext``) grow by one
/// reference, `nil` when tracing is off.
final class Span: Sendable {
    let tracer: Tracer
    let data: SpanData

    init(tracer: Tracer, data: SpanData) {
        self.tracer = tracer
        self.data = data
    }

    /// The context a callee continues the trace from (this span as the parent).
    var traceParent: TraceParent { TraceParent(traceID: data.traceID, spanID: data.spanID, flags: data.flags) }

    /// What upstream calls made under this span send, and start their client spans from.
    var traceContext: TraceContext { TraceContext(span: self) }

    /// A new span of the same trace with this one as its parent, starting now.
    func child(_ name: String, kind: SpanKind, attributes: [SpanAttribute] = []) -> Span {
        Span(
            tracer: tracer,
            data: SpanData(
                traceID: data.traceID, spanID: tracer.newSpanID(), parentSpanID: data.spanID,
                traceState: data.traceState, flags: data.flags, name: name, kind: kind,
                startNanoseconds: tracer.now(), endNanoseconds: 0, attributes: attributes, status: .unset))
    }

    /// Ends the span now with `status`, adding `attributes` (and renamed to `name`, when given: a server span learns
    /// its route when it ends), and hands it to the tracer's sink.
    func end(name: String? = nil, status: SpanStatus = .unset, attributes: [SpanAttribute] = []) {
        var data = self.data
        if let name { data.name = name }
        data.endNanoseconds = max(tracer.now(), data.startNanoseconds)
        data.attributes += attributes
        data.status = status
        tracer.sink.record(data)
    }

    /// Ends the span with the outcome of Swift code (a provider, a handler): `error` `nil` when it returned; else
    /// an error status and `error.type` with the problem code it answers (`upstream_timeout`, `internal_error`).
    func end(error: (any Error)?) {
        guard let error else { return end() }
        let code =
            (error as? PageProviderError)?.code ?? (error as? ProblemDetails)?.code
            ?? ProblemCode.internalError.rawValue
        end(status: .error(code), attributes: [.string(SemanticAttribute.errorType, code)])
    }
}
