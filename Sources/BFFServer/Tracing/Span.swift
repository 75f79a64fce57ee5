import HTTPCore
import PageModel
import Synchronization

/// A span being recorded: its ids, name, start and attributes so far. The code that starts a span ends it
/// (``end(name:status:attributes:)`` hands the finished ``SpanData`` to the tracer's sink); a span never ended is
/// never exported, and ending it twice records it once. A class, so the contexts that carry one
/// (``RequestContext``, ``CallContext``) grow by one reference, `nil` when tracing is off.
///
/// The ids are constants that children and upstream calls read. A child span's record sits under a lock, where
/// ending finishes it and hands it to the sink in place (no copy of the record, and ending appends to the attribute
/// array it started with: one allocation per span, not two). A server span has no record: everything it exports
/// is in its constants and in HTTPCore's access entry when it ends (``endServer(_:)``), which the sink encodes
/// directly (``SpanSink/recordServer(_:_:route:start:end:)``).
final class Span: Sendable {
    let tracer: Tracer
    let traceID: TraceID
    let spanID: SpanID
    /// `nil` for a trace's root span.
    let parentSpanID: SpanID?
    let flags: UInt8
    /// The trace's `tracestate`, passed on to children and upstream calls.
    let traceState: String?
    /// A server span's request path (``HTTPServerSpanFields/path``); `nil` for other spans.
    let path: String?
    /// Whether a server span has ended (it is recorded once; a child span's record is taken out when it ends).
    private let ended = Atomic<Bool>(false)
    /// A child span's record until it ends; `nil` for a server span (which has a ``path``).
    private let pending: Mutex<SpanData?>

    init(tracer: Tracer, data: consuming SpanData) {
        self.tracer = tracer
        path = nil
        traceID = data.traceID
        spanID = data.spanID
        parentSpanID = data.parentSpanID
        flags = data.flags
        traceState = data.traceState
        pending = Mutex(data)
    }

    /// A server span (kind SERVER) of the request for `path`.
    init(
        tracer: Tracer, server traceID: TraceID, spanID: SpanID, parent: SpanID?, traceState: String?, path: String
    ) {
        self.tracer = tracer
        self.traceID = traceID
        self.spanID = spanID
        parentSpanID = parent
        flags = 1
        self.traceState = traceState
        self.path = path
        pending = Mutex(nil)
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

    /// Ends the span now: `finish` sets what it learned at the end (it sees the end time already set), and the
    /// finished record goes to the tracer's sink, with the event loop it ended on (`lane`, ``SpanSink``). Does
    /// nothing when the span has already ended, or for a server span (which ends with its response,
    /// ``endServer(_:)``).
    func end(lane: Int? = nil, _ finish: (inout SpanData) -> Void) {
        guard path == nil else { return }
        let now = tracer.now()
        pending.withLock { record in
            guard var data = record.take() else { return }
            data.endNanoseconds = now
            finish(&data)
            data.endNanoseconds = max(now, data.startNanoseconds)
            // The sink encodes it under its own lock (a loop's): no lock is ever taken the other way round.
            tracer.sink.record(data, lane: lane)
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

extension Span: HTTPResponseObserver {
    /// A server span observes its response: ending with what was sent, naming itself in the access log.
    func responseSent(_ entry: HTTPAccessLogEntry) { endServer(entry) }

    var trace: HTTPTraceIDs? { HTTPTraceIDs(traceHigh: traceID.high, traceLow: traceID.low, span: spanID.value) }

    /// Ends a server span with what HTTPCore wrote: the status and the route, which names the span
    /// (`GET /v1/pages/{pageID}`) and sets `http.route` for the contract's routes; 5xx is an error. Its start is the
    /// event-loop wake-up that read the request, its end when the response was queued: both on HTTPCore's monotonic
    /// clock, already read, made wall-clock times by the tracer's anchor (``Tracer/wallNanoseconds(monotonic:)``).
    func endServer(_ entry: borrowing HTTPAccessLogEntry) {
        guard path != nil, !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let end =
            entry.startMonotonicNanoseconds == 0
            ? HTTPAccessLogEntry.monotonicNanoseconds()
            : entry.startMonotonicNanoseconds &+ entry.durationNanoseconds
        let start = end &- min(entry.durationNanoseconds, end)
        tracer.sink.recordServer(
            self, entry, route: entry.route.flatMap(ServerRoute.named),
            start: tracer.wallNanoseconds(monotonic: start), end: tracer.wallNanoseconds(monotonic: end))
    }

    /// The finished server span as a record (the JSON encoding, a sink without its own server-span encoding).
    func serverData(
        _ entry: borrowing HTTPAccessLogEntry, route: ServerRoute?, start: UInt64, end: UInt64
    ) -> SpanData {
        SpanData(
            traceID: traceID, spanID: spanID, parentSpanID: parentSpanID, traceState: traceState, flags: flags,
            name: route?.spanName(entry.method) ?? entry.method.rawValue, kind: .server, startNanoseconds: start,
            endNanoseconds: end, attributes: [], status: entry.status >= 500 ? .error("HTTP \(entry.status)") : .unset,
            http: HTTPServerSpanFields(entry, path: path ?? "", route: route))
    }
}
