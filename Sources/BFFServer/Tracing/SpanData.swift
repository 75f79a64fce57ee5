import HTTPCore

/// A finished span, as exported: ids, name, kind, timing, attributes and status (the OTLP `Span` message's fields
/// flow-bff fills).
public struct SpanData: Sendable, Hashable {
    public var traceID: TraceID
    public var spanID: SpanID
    /// `nil` for a trace's root span.
    public var parentSpanID: SpanID?
    /// The incoming `tracestate`, passed on verbatim.
    public var traceState: String?
    /// The W3C trace flags (bit 0 sampled).
    public var flags: UInt8
    public var name: String
    public var kind: SpanKind
    /// Wall-clock start and end, nanoseconds since 1970.
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64
    public var attributes: [SpanAttribute]
    public var status: SpanStatus
    /// A server span's HTTP attributes, made into attributes when exported (before ``attributes``).
    var http: HTTPServerSpanFields? = nil

    /// Every attribute: the HTTP ones of a server span, then ``attributes``.
    public var allAttributes: [SpanAttribute] { (http?.attributes ?? []) + attributes }

    /// The value of the attribute `key`, if set (tests).
    public func attribute(_ key: String) -> SpanAttribute.Value? {
        allAttributes.last { $0.key == key }?.value
    }
}

/// OTLP's `SpanKind`, by its protobuf number.
public enum SpanKind: Int, Sendable, Hashable {
    case `internal` = 1
    case server = 2
    case client = 3
}

/// One `key: value` attribute (OpenTelemetry semantic-convention names: `http.request.method`, `url.full`, …).
public struct SpanAttribute: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        case string(String)
        case int(Int64)
        case bool(Bool)
        case double(Double)
    }

    public var key: String
    public var value: Value

    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    public static func string(_ key: String, _ value: String) -> SpanAttribute { SpanAttribute(key, .string(value)) }
    public static func int(_ key: String, _ value: Int) -> SpanAttribute { SpanAttribute(key, .int(Int64(value))) }
}

/// OTLP's `Status`: unset (the default, an ordinary outcome) or an error with a message.
public enum SpanStatus: Sendable, Hashable {
    case unset
    case error(String)

    /// OTLP's `StatusCode` number: 0 unset, 2 error.
    var code: Int {
        switch self {
        case .unset: return 0
        case .error: return 2
        }
    }

    var message: String {
        switch self {
        case .unset: return ""
        case .error(let message): return message
        }
    }
}

/// Where finished spans go: the batching OTLP exporter (``OTLPSpanExporter``), or a test's memory.
/// Called on event loops and in tasks: must be cheap, thread-safe and never block. A class (one reference to copy
/// where a span ends).
protocol SpanSink: AnyObject, Sendable {
    /// Takes a finished span. `lane`: the index of the event loop it ended on (a server span), or `nil` when it
    /// ended elsewhere (in a task) — a sink may keep state per loop, so that loops do not share a lock.
    func record(_ span: SpanData, lane: Int?)

    /// Takes a finished server span: its ids in `span`, the rest in HTTPCore's access `entry` (its loop is the
    /// lane), the contract's `route` when there is one, and its wall-clock `start` and `end`. Default: the record
    /// ``Span/serverData(_:route:start:end:)`` makes, to ``record(_:lane:)``.
    func recordServer(
        _ span: Span, _ entry: borrowing HTTPAccessLogEntry, route: ServerRoute?, start: UInt64, end: UInt64)
}

extension SpanSink {
    /// A span that ended off the event loops.
    func record(_ span: SpanData) { record(span, lane: nil) }

    func recordServer(
        _ span: Span, _ entry: borrowing HTTPAccessLogEntry, route: ServerRoute?, start: UInt64, end: UInt64
    ) {
        record(span.serverData(entry, route: route, start: start, end: end), lane: entry.loop)
    }
}
