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

    /// The server span of `request` (kind SERVER, named by its method until ``ServerSpan/end(_:)`` learns the
    /// route), continuing `traceparent` when it is valid; `nil` when the sampler does not keep the trace.
    /// - Parameters:
    ///   - traceparent: the request's `traceparent` field, if any.
    ///   - tracestate: the request's `tracestate` field, passed on verbatim when `traceparent` is valid and it is
    ///     at most 512 bytes.
    func serverSpan(_ request: borrowing HTTPRequest, traceparent: String?, tracestate: String?) -> Span? {
        let parent = traceparent.flatMap(TraceParent.init)
        let traceID = parent?.traceID ?? newTraceID()
        guard sampler.shouldSample(traceID, parent: parent) else { return nil }
        var attributes: [SpanAttribute] = [
            .string(SemanticAttribute.httpRequestMethod, request.method.rawValue),
            .string(SemanticAttribute.urlPath, request.path),
            .string(SemanticAttribute.urlScheme, "http"),
            .string(SemanticAttribute.networkProtocolVersion, request.version.minor == 0 ? "1.0" : "1.1"),
        ]
        if let host = request.headers["Host"], let authority = Authority(host) {
            attributes.append(.string(SemanticAttribute.serverAddress, authority.host))
            if let port = authority.port { attributes.append(.int(SemanticAttribute.serverPort, port)) }
        }
        if let userAgent = request.headers["User-Agent"] {
            attributes.append(.string(SemanticAttribute.userAgentOriginal, userAgent))
        }
        if let address = request.remoteAddress, let peer = Authority(address) {
            attributes.append(.string(SemanticAttribute.clientAddress, peer.host))
        }
        return Span(
            tracer: self,
            data: SpanData(
                traceID: traceID, spanID: newSpanID(), parentSpanID: parent?.spanID,
                traceState: parent == nil ? nil : tracestate.flatMap { $0.utf8.count <= 512 ? $0 : nil },
                flags: 1, name: request.method.rawValue, kind: .server, startNanoseconds: now(), endNanoseconds: 0,
                attributes: attributes, status: .unset))
    }
}

extension Span {
    /// Ends a server span with what HTTPCore wrote: the status and the route, which names the span
    /// (`GET /v1/pages/{pageID}`) and sets `http.route` for the contract's routes; 5xx is an error.
    func endServer(_ entry: HTTPAccessLogEntry) {
        var attributes: [SpanAttribute] = [.int(SemanticAttribute.httpResponseStatusCode, entry.status)]
        var name: String?
        if let template = entry.route.flatMap(ServerRoute.template(named:)) {
            name = entry.method.rawValue + " " + template
            attributes.append(.string(SemanticAttribute.httpRoute, template))
        }
        if entry.status >= 500 {
            attributes.append(.string(SemanticAttribute.errorType, String(entry.status)))
            end(name: name, status: .error("HTTP \(entry.status)"), attributes: attributes)
        } else {
            end(name: name, attributes: attributes)
        }
    }
}

/// The route templates of the server's route names (``ContractRoute``): what `http.route` says.
enum ServerRoute {
    static let templates: [String: String] = Dictionary(
        uniqueKeysWithValues: ContractRoute.all.map { ($0.name, $0.template) })

    static func template(named name: String) -> String? { templates[name] }
}

/// `host[:port]` of a `Host` field or a peer address (`[v6]:port` for IPv6).
struct Authority {
    var host: String
    var port: Int?

    init?(_ text: String) {
        guard !text.isEmpty else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            port = rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            port = Int(text[text.index(after: colon)...])
        } else {
            host = text
            port = nil
        }
    }
}
