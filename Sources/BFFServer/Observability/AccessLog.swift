import Dispatch
import Foundation
import PageModel
import Synchronization

/// Where the server writes its lines (access log, startup messages). Libraries take a sink; tests pass
/// ``MemoryLogSink``.
public protocol BFFLogSink: Sendable {
    func write(_ line: String)
}

/// Buffers lines and writes them to standard output in batches (at 32 KiB, every 200 ms, and on ``flush()``), so
/// access logging costs no syscall per request.
// @unchecked Sendable: `buffer` is a Mutex; `timer` is only touched in init and deinit.
public final class StandardOutputLogSink: BFFLogSink, @unchecked Sendable {
    private let buffer = Mutex<[UInt8]>([])
    private let timer: DispatchSourceTimer

    public init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "flow-bff.log"))
        timer.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200))
        timer.setEventHandler { [weak self] in self?.flush() }
        timer.resume()
    }

    deinit { timer.cancel() }

    public func write(_ line: String) {
        let full = buffer.withLock { buffer -> Bool in
            buffer.append(contentsOf: line.utf8)
            buffer.append(UInt8(ascii: "\n"))
            return buffer.count >= 32_768
        }
        if full { flush() }
    }

    public func flush() {
        let bytes = buffer.withLock { buffer -> [UInt8] in
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        guard !bytes.isEmpty else { return }
        FileHandle.standardOutput.write(Data(bytes))
    }
}

/// Keeps lines in memory, for tests.
public final class MemoryLogSink: BFFLogSink {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func write(_ line: String) { storage.withLock { $0.append(line) } }

    public var lines: [String] { storage.withLock { $0 } }
}

/// One structured access-log line: `{"time","requestID","method","path","status","bytes","durationMs","route"}`.
struct AccessLogLine {
    var requestID: String
    var method: String
    var path: String
    var route: String
    var status: Int
    var bytes: Int
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
        line.append(contentsOf: #","durationMs":"#.utf8)
        let micros = Int(seconds * 1_000_000)
        line.append(contentsOf: String(micros / 1000).utf8)
        line.append(UInt8(ascii: "."))
        let fraction = String(micros % 1000)
        line.append(contentsOf: String(repeating: "0", count: 3 - fraction.count).utf8)
        line.append(contentsOf: fraction.utf8)
        line.append(UInt8(ascii: "}"))
        return String(decoding: line, as: UTF8.self)
    }

    static func quoted(_ text: String) -> String {
        var output: [UInt8] = []
        JSONWriter.appendString(text, to: &output)
        return String(decoding: output, as: UTF8.self)
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

/// `X-Request-ID`: the client's when it is 1–128 visible ASCII characters, else a new one: a random per-process
/// prefix and a counter (32 hex digits, unique across replicas without a random draw per request).
enum RequestID {
    static let prefix: String = {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next())
    }()
    static let counter = Atomic<UInt64>(0)

    static func accept(_ value: String?) -> String {
        if let value, (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        {
            return value
        }
        return prefix + hex(counter.add(1, ordering: .relaxed).newValue)
    }

    static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
