import HTTPCore
import PageModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starts flow-bff's spans: a server span per sampled request on the public listener (continuing the caller's
/// `traceparent`, or a new trace), and — through the request's context — internal spans for provider and
/// action-handler runs and client spans for upstream calls. Finished spans go to a ``SpanSink``.
///
/// Built by the application when `tracing` is on (``BFFConfiguration/Tracing``); `nil` otherwise, and then no
/// request pays for tracing beyond one `nil` check.
public final class Tracer: Sendable {
    public let sampler: TraceSampler
    let sink: any SpanSink
    /// Wall-clock nanoseconds since 1970.
    let now: @Sendable () -> UInt64

    /// - Parameters:
    ///   - sampler: which traces are recorded. Default `parentbased_always_on`.
    ///   - sink: where finished spans go.
    ///   - clock: wall-clock nanoseconds since 1970 (tests inject one). Default the system's real-time clock.
    public init(
        sampler: TraceSampler = TraceSampler(), sink: any SpanSink,
        clock: @escaping @Sendable () -> UInt64 = Tracer.wallClock
    ) {
        self.sampler = sampler
        self.sink = sink
        self.now = clock
    }

    /// `CLOCK_REALTIME` in nanoseconds.
    @Sendable public static func wallClock() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Ids are SplitMix64 of a counter from a random start: unique within the process, uniformly spread (the
    /// ratio sampler reads the trace id's low bits), and no `getrandom` system call per id.
    private let idSeed: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private let idCounter = Atomic<UInt64>(0)

    private func nextID() -> UInt64 {
        var z = idSeed &+ idCounter.add(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    func newSpanID() -> SpanID {
        while true {
            let value = nextID()
            if value != 0 { return SpanID(value) }
        }
    }

    func newTraceID() -> TraceID {
        while true {
            let id = TraceID(high: nextID(), low: nextID())
            if id.high != 0 || id.low != 0 { return id }
        }
    }

    /// The server span of `request` (kind SERVER, named by its method until ``Span/endServer(_:)`` learns the
    /// route and its start), continuing the request's `traceparent` when it is valid; `nil` when the sampler does
    /// not keep the trace. Its `tracestate` is passed on verbatim when `traceparent` is valid and it is at most 512
    /// bytes.
    func serverSpan(_ request: borrowing HTTPRequest) -> Span? {
        let fields = RequestTraceFields(request.headers)
        let tracestate = fields.tracestate
        let parent = fields.traceparent.flatMap(TraceParent.init)
        let traceID = parent?.traceID ?? newTraceID()
        guard sampler.shouldSample(traceID, parent: parent) else { return nil }
        return Span(
            tracer: self, path: request.path,
            data: SpanData(
                traceID: traceID, spanID: newSpanID(), parentSpanID: parent?.spanID,
                traceState: parent == nil ? nil : tracestate.flatMap { $0.utf8.count <= 512 ? $0 : nil },
                flags: 1, name: request.method.rawValue, kind: .server, startNanoseconds: 0, endNanoseconds: 0,
                attributes: [], status: .unset))
    }
}

extension Span: HTTPResponseObserver {
    /// A server span observes its response: ending with what was sent, naming itself in the access log.
    func responseSent(_ entry: HTTPAccessLogEntry) { endServer(entry) }

    var trace: HTTPTraceIDs? { HTTPTraceIDs(traceHigh: traceID.high, traceLow: traceID.low, span: spanID.value) }

    /// Ends a server span with what HTTPCore wrote: the status and the route, which names the span
    /// (`GET /v1/pages/{pageID}`) and sets `http.route` for the contract's routes; 5xx is an error.
    func endServer(_ entry: HTTPAccessLogEntry) {
        end(lane: entry.loop) { data in
            let route = entry.route.flatMap(ServerRoute.named)
            if let route { data.name = route.spanName(entry.method) }
            data.http = HTTPServerSpanFields(entry, path: path ?? "", route: route)
            // It started when the loop woke for the request's bytes: no clock read at the start. The time since then
            // is read now, after the end time, so a thread preempted between HTTPCore's entry and this line cannot
            // move the start past the spans inside it.
            let elapsed =
                entry.startMonotonicNanoseconds == 0
                ? entry.durationNanoseconds
                : HTTPAccessLogEntry.monotonicNanoseconds() &- entry.startMonotonicNanoseconds
            data.startNanoseconds = data.endNanoseconds &- min(elapsed, data.endNanoseconds)
            if entry.status >= 500 { data.status = .error("HTTP \(entry.status)") }
        }
    }
}

/// The route templates of the server's route names (``ContractRoute``): what `http.route` says, and the span names
/// `METHOD template` made once rather than per request. A class: a span that ends copies one reference, not three
/// strings.
final class ServerRoute: Sendable {
    let name: String
    let template: String
    let getName: String
    let postName: String
    /// `http.route`, encoded once.
    let attribute: ConstantAttribute

    init(name: String, template: String) {
        self.name = name
        self.template = template
        getName = "GET " + template
        postName = "POST " + template
        attribute = ConstantAttribute(SemanticAttribute.httpRoute, template)
    }

    static let all: [ServerRoute] = ContractRoute.all.map { ServerRoute(name: $0.name, template: $0.template) }

    /// The route named `name`: a few short names compared in turn (lengths first) cost less than hashing one.
    static func named(_ name: String) -> ServerRoute? {
        let length = name.utf8.count
        for route in all where route.name.utf8.count == length && route.name == name { return route }
        return nil
    }

    func spanName(_ method: HTTPMethod) -> String {
        if method == .get { return getName }
        if method == .post { return postName }
        return method.rawValue + " " + template
    }
}
