import PageModel
import Synchronization

/// A span being recorded: its ids, name, start and attributes so far. The code that starts a span ends it
/// (``end(name:status:attributes:)`` hands the finished ``SpanData`` to the tracer's sink); a span never ended is
/// never exported, and ending it twice records it once. A class, so the contexts that carry one
/// (``RequestContext``, ``CallContext``) grow by one reference, `nil` when tracing is off.
///
/// The ids are constants that children and upstream calls read; the rest of the record sits under a lock, where
/// ending finishes it and hands it to the sink in place (no copy of the record, and ending appends to the attribute
/// array it started with: one allocation per span, not two).
final class Span: Sendable {
    let tracer: Tracer
    let traceID: TraceID
    let spanID: SpanID
    let flags: UInt8
    /// The trace's `tracestate`, passed on to children and upstream calls.
    let traceState: String?
    /// A server span's request path (``HTTPServerSpanFields/path``); `nil` for other spans.
    let path: String?
    private let pending: Mutex<Pending>

    private struct Pending {
        var data: SpanData
        var ended = false
    }

    init(tracer: Tracer, path: String? = nil, data: consuming SpanData) {
        self.tracer = tracer
        self.path = path
        traceID = data.traceID
        spanID = data.spanID
        flags = data.flags
        traceState = data.traceState
        pending = Mutex(Pending(data: data))
    }

    /// The context a callee continues the trace from (this span as the parent).
    var traceParent: TraceParent { TraceParent(traceID: traceID, spanID: spanID, flags: flags) }

    /// What upstream calls made under this span send, and start their client spans from.
    var traceContext: TraceContext { TraceContext(span: self) }

    /// A new span of the same trace with this one as its parent, starting now.
    func child(_ name: String, kind: SpanKind, attributes: [SpanAttribute] = []) -> Span {
        Span(
            tracer: tracer,
            data: SpanData(
                traceID: traceID, spanID: tracer.newSpanID(), parentSpanID: spanID, traceState: traceState,
                flags: flags, name: name, kind: kind, startNanoseconds: tracer.now(), endNanoseconds: 0,
                attributes: attributes, status: .unset))
    }

    /// Ends the span now: `finish` sets what it learned at the end (a server span its route, status and start; it
    /// sees the end time already set), and the finished record goes to the tracer's sink, with the event loop it
    /// ended on (`lane`, ``SpanSink``). Does nothing when the span has already ended.
    func end(lane: Int? = nil, _ finish: (inout SpanData) -> Void) {
        let now = tracer.now()
        pending.withLock { pending in
            guard !pending.ended else { return }
            pending.ended = true
            pending.data.endNanoseconds = now
            finish(&pending.data)
            pending.data.endNanoseconds = max(now, pending.data.startNanoseconds)
            // The sink encodes it under its own lock (a loop's): no lock is ever taken the other way round.
            tracer.sink.record(pending.data, lane: lane)
        }
    }

    /// Ends the span now with `status`, adding `attributes` (and renamed to `name`, when given).
    func end(name: String? = nil, status: SpanStatus = .unset, attributes: [SpanAttribute] = []) {
        end { data in
            if let name { data.name = name }
            data.attributes += attributes
            data.status = status
        }
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
