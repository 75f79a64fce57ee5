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
    let clock: @Sendable () -> UInt64
    /// The wall clock minus HTTPCore's monotonic clock (wrapping), read again at most once a second
    /// (``anchorLifetime``): a span's times are monotonic readings plus this anchor, so a server span, whose times
    /// HTTPCore already read, reads no clock, and the spans of one request are timed on one clock.
    private let anchor = Atomic<UInt64>(0)
    /// When the anchor is read again, on the monotonic clock.
    private let anchorExpiry = Atomic<UInt64>(0)
    static let anchorLifetime: UInt64 = 1_000_000_000

    /// - Parameters:
    ///   - sampler: which traces are recorded. Default `parentbased_always_on`.
    ///   - sink: where finished spans go.
    ///   - clock: wall-clock nanoseconds since 1970 (tests inject one). Default the system's real-time clock.
    init(
        sampler: TraceSampler = TraceSampler(), sink: any SpanSink,
        clock: @escaping @Sendable () -> UInt64 = Tracer.wallClock
    ) {
        self.sampler = sampler
        self.sink = sink
        self.clock = clock
        let wall = clock()
        let now = HTTPAccessLogEntry.monotonicNanoseconds()
        anchor.store(wall &- now, ordering: .relaxed)
        anchorExpiry.store(now &+ Self.anchorLifetime, ordering: .relaxed)
    }

    /// Wall-clock nanoseconds since 1970, now.
    func now() -> UInt64 { wallNanoseconds(monotonic: HTTPAccessLogEntry.monotonicNanoseconds()) }

    /// The wall-clock time of the monotonic reading `monotonic` (``HTTPAccessLogEntry/monotonicNanoseconds()``),
    /// reading the wall clock again when the anchor is a second old.
    func wallNanoseconds(monotonic: UInt64) -> UInt64 {
        if monotonic >= anchorExpiry.load(ordering: .relaxed) {
            // Two loops may both renew it: either anchor is right (the one made in `init` is never zero).
            let wall = clock()
            let now = HTTPAccessLogEntry.monotonicNanoseconds()
            anchor.store(wall &- now, ordering: .relaxed)
            anchorExpiry.store(now &+ Self.anchorLifetime, ordering: .relaxed)
        }
        return monotonic &+ anchor.load(ordering: .relaxed)
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

    /// The server span of `request` (kind SERVER, ended by ``Span/endServer(_:)``, which learns its route, start
    /// and end), continuing the request's `traceparent` when it is valid; `nil` when the sampler does
    /// not keep the trace. Its `tracestate` is passed on verbatim when `traceparent` is valid and it is at most 512
    /// bytes.
    func serverSpan(_ request: borrowing HTTPRequest) -> Span? {
        let fields = RequestTraceFields(request.headers)
        let tracestate = fields.tracestate
        let parent = fields.traceparent.flatMap(TraceParent.init)
        let traceID = parent?.traceID ?? newTraceID()
        guard sampler.shouldSample(traceID, parent: parent) else { return nil }
        return Span(
            tracer: self, server: traceID, spanID: newSpanID(), parent: parent?.spanID,
            traceState: parent == nil ? nil : tracestate.flatMap { $0.utf8.count <= 512 ? $0 : nil },
            path: request.path)
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
