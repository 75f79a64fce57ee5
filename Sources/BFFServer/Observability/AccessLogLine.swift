import Foundation
import HTTPCore
import PageModel
import Synchronization

/// One structured access-log line, from what HTTPCore wrote:
/// `{"time","requestID","method","path","route","status","bytes","gzip"?,"durationMs"}`, then the
/// ``AccessLogExtras`` the request and response have (`page`, `problem`, `peer`, `client`, `userAgent`,
/// `appPlatform`, `appVersion`).
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
        appendFixedMembers(to: &line)
        line.append(UInt8(ascii: "}"))
    }

    /// The whole line: the fixed members, the ones ``AccessLogExtras`` finds in `entry`, and the closing brace.
    func append(to line: inout [UInt8], extrasOf entry: borrowing HTTPAccessLogEntry, trustedProxies: Set<String>) {
        appendFixedMembers(to: &line)
        AccessLogExtras.append(entry, trustedProxies: trustedProxies, to: &line)
        line.append(UInt8(ascii: "}"))
    }

    /// Appends the line up to `durationMs`, without its closing brace. Short fields that need no escaping (every
    /// line the server writes in practice) are formatted into a stack buffer with unchecked writes and appended in
    /// one copy; anything else takes the general path.
    private func appendFixedMembers(to line: inout [UInt8]) {
        var requestID = requestID
        var method = method
        var path = path
        var route = route
        let written = requestID.withUTF8 { requestID in
            method.withUTF8 { method in
                path.withUTF8 { path in
                    route.withUTF8 { route in
                        appendFast(requestID, method, path, route, to: &line)
                    }
                }
            }
        }
        if !written { appendGeneral(to: &line) }
    }

    /// The fast path: false (and nothing written) when a field is long or needs escaping.
    private func appendFast(
        _ requestID: UnsafeBufferPointer<UInt8>, _ method: UnsafeBufferPointer<UInt8>,
        _ path: UnsafeBufferPointer<UInt8>,
        _ route: UnsafeBufferPointer<UInt8>, to line: inout [UInt8]
    ) -> Bool {
        guard Self.isPlain(requestID), Self.isPlain(method), Self.isPlain(path), Self.isPlain(route) else {
            return false
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.fastCapacity) { buffer in
            var out = UncheckedWriter(base: buffer.baseAddress!)
            out.write(#"{"time":""#)
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            Self.second.withLock { cached in
                Self.refresh(&cached, now.tv_sec)
                cached.prefix.withUnsafeBufferPointer { out.write($0) }
            }
            out.writeDecimal(Int(now.tv_nsec / 1_000_000), minimumDigits: 3)
            out.write(#"Z","requestID":""#)
            out.write(requestID)
            out.write(#"","method":""#)
            out.write(method)
            out.write(#"","path":""#)
            out.write(path)
            out.write(#"","route":""#)
            out.write(route)
            out.write(#"","status":"#)
            out.writeDecimal(status)
            out.write(#","bytes":"#)
            out.writeDecimal(bytes)
            if gzip { out.write(#","gzip":true"#) }
            out.write(#","durationMs":"#)
            let micros = max(0, Int(seconds * 1_000_000))
            out.writeDecimal(micros / 1000)
            out.write(UInt8(ascii: "."))
            out.writeDecimal(micros % 1000, minimumDigits: 3)
            line.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: out.count))
        }
        return true
    }

    /// Short, and nothing to escape in a JSON string.
    private static func isPlain(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
        guard field.count <= fastFieldLimit else { return false }
        for byte in field where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
        return true
    }

    /// The longest field the fast path formats, and its buffer: the fixed text, a timestamp and 20-digit numbers
    /// fit in the 256 bytes left after four such fields.
    private static let fastFieldLimit = 128
    private static let fastCapacity = 4 * 128 + 256

    /// Writes into a buffer known to be large enough, without checks.
    private struct UncheckedWriter {
        let base: UnsafeMutablePointer<UInt8>
        var count = 0

        mutating func write(_ text: StaticString) {
            (base + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
            count += text.utf8CodeUnitCount
        }

        mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            (base + count).update(from: source, count: bytes.count)
            count += bytes.count
        }

        mutating func write(_ byte: UInt8) {
            base[count] = byte
            count += 1
        }

        /// `value` (≥ 0) in decimal, zero-padded to `minimumDigits`.
        mutating func writeDecimal(_ value: Int, minimumDigits: Int = 1) {
            var digits = 1
            var limit = 10
            while digits < 19 && value >= limit {
                digits += 1
                limit &*= 10
            }
            let width = max(digits, minimumDigits)
            var remaining = max(value, 0)
            for index in stride(from: width - 1, through: 0, by: -1) {
                base[count + index] = 0x30 + UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
            }
            count += width
        }
    }

    /// The general path: any field length, escaped as JSON.
    private func appendGeneral(to line: inout [UInt8]) {
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
    }

    /// The formatted second (`2026-11-29T20:19:20.`), cached: formatting a date per request would cost more than
    /// the rest of the line.
    static let second = Mutex<(seconds: Int, prefix: [UInt8])>((-1, []))

    /// Reformats the cached date part when the second changed.
    private static func refresh(_ cached: inout (seconds: Int, prefix: [UInt8]), _ second: Int) {
        guard cached.seconds != second else { return }
        var time = tm()
        var seconds = second
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
        cached = (second, prefix)
    }

    /// Appends `2026-11-29T20:19:20.123Z`.
    static func appendTimestamp(to line: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        second.withLock { cached in
            refresh(&cached, now.tv_sec)
            line.append(contentsOf: cached.prefix)
        }
        ByteFormatting.appendDecimal(Int(now.tv_nsec / 1_000_000), minimumDigits: 3, to: &line)
        line.append(UInt8(ascii: "Z"))
    }
}
