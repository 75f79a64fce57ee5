#if canImport(Glibc)
    import Glibc
#endif

/// One served request, for access logging.
public struct HTTPAccessLogEntry: Sendable {
    public var method: HTTPMethod
    public var target: String
    public var version: HTTPVersion
    public var status: Int
    /// Body bytes sent (after compression).
    public var bodyBytes: Int
    public var remoteAddress: String?
    /// Time from the complete request to the response being queued, in nanoseconds.
    public var durationNanoseconds: UInt64
}

/// Where the server reports access-log entries and errors. The library never creates a global logger: pass
/// one to ``HTTPServer``. Methods are called on event-loop threads and must be cheap and thread-safe.
public protocol HTTPLogSink: Sendable {
    /// Whether ``access(_:)`` should be called at all (skipping building the entries saves time).
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
        line.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
    }
}
