#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One served request, for access logging: what the server actually wrote, not what the handler returned (a
/// prepared body may have become a 304, a body gzip, a `HEAD` answer has no body).
public struct HTTPAccessLogEntry: Sendable {
    public var method: HTTPMethod
    public var target: String
    public var version: HTTPVersion
    /// The status line written.
    public var status: Int
    /// Body bytes written (after compression; 0 for `HEAD` and 304).
    public var bodyBytes: Int
    /// Whether the body was sent with `Content-Encoding: gzip`.
    public var gzip: Bool
    public var remoteAddress: String?
    /// Time from the event-loop wake-up that read the end of the request (the loop reads its clock once per batch of
    /// ready connections) to the response being queued, in nanoseconds.
    public var durationNanoseconds: UInt64
    /// The responder's ``HTTPResponse/route``; `nil` for answers the server made itself (malformed requests,
    /// handler failures).
    public var route: String?
    /// The response's ``HTTPResponse/requestID``.
    public var requestID: String?
    /// The index of the event loop that wrote the response (0 to `workers - 1`). Entries with one index are
    /// reported from one thread, so a sink can keep per-loop counters without contention.
    public var loop: Int = 0
    /// The response's ``HTTPResponse/annotations`` (the page served, a problem code, upstream time, the trace).
    public var annotations: HTTPResponseAnnotations? = nil
    /// The request's header fields (`User-Agent`, `X-Forwarded-For`, …), for an access log that reports them.
    public var requestHeaders = HTTPFields()
    /// The ids of the span that answered, when traced (``HTTPResponseObserver/trace``).
    public var trace: HTTPTraceIDs? = nil
    /// When that event-loop wake-up was, on ``monotonicNanoseconds()``'s clock (0 when unknown): an observer that
    /// reads the clock after the entry was made knows how long ago the request arrived, however late it runs.
    public var startMonotonicNanoseconds: UInt64 = 0

    /// The monotonic clock the server measures ``durationNanoseconds`` and ``startMonotonicNanoseconds`` with.
    public static func monotonicNanoseconds() -> UInt64 { System.monotonicNanoseconds() }
}

extension HTTPAccessLogEntry {
    /// An entry for what a test driver answered without a socket (HTTPTesting's `HTTPResponderClient`). A factory,
    /// not an initializer: any initializer declared in the struct would replace the memberwise one the server
    /// builds its entries with in place.
    package static func answered(
        method: HTTPMethod, target: String, version: HTTPVersion, status: Int, bodyBytes: Int, gzip: Bool,
        remoteAddress: String?, durationNanoseconds: UInt64, route: String?, requestID: String?,
        annotations: HTTPResponseAnnotations? = nil
    ) -> HTTPAccessLogEntry {
        HTTPAccessLogEntry(
            method: method, target: target, version: version, status: status, bodyBytes: bodyBytes, gzip: gzip,
            remoteAddress: remoteAddress, durationNanoseconds: durationNanoseconds, route: route, requestID: requestID,
            annotations: annotations)
    }
}

/// Where the server reports access-log entries and errors. The library never creates a global logger: pass
/// one to ``HTTPServer``. Methods are called on event-loop threads and must be cheap and thread-safe.
public protocol HTTPLogSink: Sendable {
    /// Whether ``access(_:)`` should be called at all (skipping building the entries saves time). Read once, when
    /// the server starts.
    var wantsAccessLog: Bool { get }
    func access(_ entry: HTTPAccessLogEntry)
    /// An error worth an operator's attention (handler failures answered with 500, socket errors, …).
    func error(_ message: String)
}

extension HTTPLogSink {
    public var wantsAccessLog: Bool { false }
    public func access(_ entry: HTTPAccessLogEntry) {}
}

/// Discards everything (the default).
public struct HTTPNoopLogSink: HTTPLogSink {
    public init() {}
    public func error(_ message: String) {}
}

/// Writes one line per event to standard error.
public struct HTTPStderrLogSink: HTTPLogSink {
    public let wantsAccessLog: Bool

    public init(accessLog: Bool = false) {
        wantsAccessLog = accessLog
    }

    public func access(_ entry: HTTPAccessLogEntry) {
        let micros = entry.durationNanoseconds / 1000
        write(
            "\(entry.remoteAddress ?? "-") \"\(entry.method) \(entry.target) \(entry.version)\" "
                + "\(entry.status) \(entry.bodyBytes) \(micros)us\n")
    }

    public func error(_ message: String) {
        write("error: \(message)\n")
    }

    private func write(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            if let base = bytes.baseAddress { _ = Platform.write(2, base, bytes.count) }
        }
    }
}
