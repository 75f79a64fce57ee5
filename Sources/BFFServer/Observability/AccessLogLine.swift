import Foundation
import HTTPCore
import PageModel
import Synchronization

/// One structured access-log line, from what HTTPCore wrote:
/// `{"time","requestID","method","path","route","status","bytes","gzip"?,"durationMs"}`.
///
/// Written straight into the sink's buffer (``BFFLogSink/writeLine(_:)``): no intermediate `String` per field or
/// per line, and the timestamp's date part is formatted once a second.
struct AccessLogLine {
    var requestID: String
    var method: String
    /// The request target up to its `?`.
    var path: Substring
    var route: String
    var status: Int
    var bytes: Int
    var gzip: Bool
    var seconds: Double

    // The keys, as bytes once (appending an array is a copy; appending a string's UTF-8 view walks it).
    private static let timeKey = Array(#"{"time":""#.utf8)
    private static let requestIDKey = Array(#"","requestID":"#.utf8)
    private static let methodKey = Array(#","method":"#.utf8)
    private static let pathKey = Array(#","path":"#.utf8)
    private static let routeKey = Array(#","route":"#.utf8)
    private static let statusKey = Array(#","status":"#.utf8)
    private static let bytesKey = Array(#","bytes":"#.utf8)
    private static let gzipTrue = Array(#","gzip":true"#.utf8)
    private static let durationKey = Array(#","durationMs":"#.utf8)

    /// Appends the line (without its newline) to `line`.
    func append(to line: inout [UInt8]) {
        line.append(contentsOf: Self.timeKey)
        Self.appendTimestamp(to: &line)
        line.append(contentsOf: Self.requestIDKey)
        JSONWriter.appendString(requestID, to: &line)
        line.append(contentsOf: Self.methodKey)
        JSONWriter.appendString(method, to: &line)
        line.append(contentsOf: Self.pathKey)
        JSONWriter.appendString(path, to: &line)
        line.append(contentsOf: Self.routeKey)
        JSONWriter.appendString(route, to: &line)
        line.append(contentsOf: Self.statusKey)
        ByteFormatting.appendDecimal(status, to: &line)
        line.append(contentsOf: Self.bytesKey)
        ByteFormatting.appendDecimal(bytes, to: &line)
        if gzip { line.append(contentsOf: Self.gzipTrue) }
        line.append(contentsOf: Self.durationKey)
        let micros = Int(seconds * 1_000_000)
        ByteFormatting.appendDecimal(micros / 1000, to: &line)
        line.append(UInt8(ascii: "."))
        ByteFormatting.appendDecimal(micros % 1000, minimumDigits: 3, to: &line)
        line.append(UInt8(ascii: "}"))
    }

    /// The formatted second (`2026-11-29T20:19:20.`), cached: formatting a date per request would cost more than
    /// the rest of the line.
    static let second = Mutex<(seconds: Int, prefix: [UInt8])>((-1, []))

    /// Appends `2026-11-29T20:19:20.123Z`.
    static func appendTimestamp(to line: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        second.withLock { cached in
            if cached.seconds != now.tv_sec {
                var time = tm()
                var seconds = now.tv_sec
                gmtime_r(&seconds, &time)
                var prefix: [UInt8] = []
                prefix.reserveCapacity(20)
                for (value, digits, separator) in [
                    (time.tm_year + 1900, 4, "-"), (time.tm_mon + 1, 2, "-"), (time.tm_mday, 2, "T"),
                    (time.tm_hour, 2, ":"), (time.tm_min, 2, ":"), (time.tm_sec, 2, "."),
                ] as [(Int32, Int, Unicode.Scalar)] {
                    ByteFormatting.appendDecimal(Int(value), minimumDigits: digits, to: &prefix)
                    prefix.append(UInt8(ascii: separator))
                }
                cached = (now.tv_sec, prefix)
            }
            line.append(contentsOf: cached.prefix)
        }
        ByteFormatting.appendDecimal(Int(now.tv_nsec / 1_000_000), minimumDigits: 3, to: &line)
        line.append(UInt8(ascii: "Z"))
    }
}
