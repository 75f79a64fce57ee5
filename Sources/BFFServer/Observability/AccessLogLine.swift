import Foundation
import PageModel
import Synchronization

/// One structured access-log line, from what HTTPCore wrote:
/// `{"time","requestID","method","path","route","status","bytes","gzip"?,"durationMs"}`.
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

    var json: String {
        var line: [UInt8] = []
        line.reserveCapacity(240)
        line.append(contentsOf: #"{"time":""#.utf8)
        line.append(contentsOf: Self.timestamp().utf8)
        line.append(contentsOf: #"","requestID":"#.utf8)
        JSONWriter.appendString(requestID, to: &line)
        line.append(contentsOf: #","method":"#.utf8)
        JSONWriter.appendString(method, to: &line)
        line.append(contentsOf: #","path":"#.utf8)
        JSONWriter.appendString(path, to: &line)
        line.append(contentsOf: #","route":"#.utf8)
        JSONWriter.appendString(route, to: &line)
        line.append(contentsOf: #","status":"#.utf8)
        line.append(contentsOf: String(status).utf8)
        line.append(contentsOf: #","bytes":"#.utf8)
        line.append(contentsOf: String(bytes).utf8)
        if gzip { line.append(contentsOf: #","gzip":true"#.utf8) }
        line.append(contentsOf: #","durationMs":"#.utf8)
        let micros = Int(seconds * 1_000_000)
        line.append(contentsOf: String(micros / 1000).utf8)
        line.append(UInt8(ascii: "."))
        let fraction = String(micros % 1000)
        line.append(contentsOf: String(repeating: "0", count: 3 - fraction.utf8.count).utf8)
        line.append(contentsOf: fraction.utf8)
        line.append(UInt8(ascii: "}"))
        return String(decoding: line, as: UTF8.self)
    }

    /// The formatted second, cached: formatting a date per request would cost more than the rest of the line.
    static let second = Mutex<(seconds: Int, text: String)>((-1, ""))

    /// `2026-11-29T20:19:20.123Z`.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let millis = Int(now.tv_nsec / 1_000_000)
        let prefix = second.withLock { cached -> String in
            if cached.seconds == now.tv_sec { return cached.text }
            var time = tm()
            var seconds = now.tv_sec
            gmtime_r(&seconds, &time)
            func pad(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
            cached = (
                now.tv_sec,
                "\(time.tm_year + 1900)-\(pad(time.tm_mon + 1))-\(pad(time.tm_mday))T\(pad(time.tm_hour)):"
                    + "\(pad(time.tm_min)):\(pad(time.tm_sec))."
            )
            return cached.text
        }
        return prefix + (millis < 10 ? "00" : millis < 100 ? "0" : "") + String(millis) + "Z"
    }
}
