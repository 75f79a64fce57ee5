import Foundation
import PageModel

/// Renders the server's JSON lines for a person at a terminal (`logging.format` `human`, the default in mock mode
/// when standard output is a terminal) and passes them on to `base`:
///
/// - an access line becomes `15:04:05 200 GET /v1/pages/home 1.2 ms 3.4 kB gzip`, its status coloured by class;
/// - a page-file finding of a reload becomes `pages/cart.json:12:9: error: unknown_widget_type: … (serving the
///   last good version)` — the `file:line:column` form of `flow-bff check`, which editors and terminals link;
/// - any other event becomes `15:04:05 warning message key=value …`.
///
/// Text that is not a JSON object (the start-up banner) passes unchanged. `auto` never picks it outside mock mode:
/// it parses each line again, which is fine for a developer's request rate and not meant for a busy replica.
public final class HumanLogSink: BFFLogSink {
    private let base: any BFFLogSink
    private let color: Bool
    private let directory: String?
    private let parser = JSONParser(maximumDepth: 16)

    /// - Parameters:
    ///   - base: where the rendered lines go.
    ///   - color: ANSI colours (a terminal without `NO_COLOR`).
    ///   - directory: the pages directory, put before a finding's file so the path opens from the working
    ///     directory; `nil` for none.
    public init(base: any BFFLogSink, color: Bool, directory: String? = nil) {
        self.base = base
        self.color = color
        self.directory = directory
    }

    public func write(_ line: String) {
        base.write(render(line))
    }

    public func writeLine(_ build: (inout [UInt8]) -> Void) {
        var bytes: [UInt8] = []
        build(&bytes)
        base.write(render(String(decoding: bytes, as: UTF8.self)))
    }

    /// The line as a person reads it.
    func render(_ line: String) -> String {
        guard line.hasPrefix("{"), case .object(let object)? = try? parser.parse(Array(line.utf8)) else { return line }
        if let status = object["status"]?.intValue, let method = object["method"]?.stringValue,
            let path = object["path"]?.stringValue
        {
            return access(object, status: status, method: method, path: path)
        }
        if let file = object["file"]?.stringValue, let code = object["code"]?.stringValue {
            return finding(object, file: file, code: code)
        }
        return event(object)
    }

    private func access(_ object: JSONObject, status: Int, method: String, path: String) -> String {
        var parts = [clock(object["time"]?.stringValue), paint(String(status), Self.statusColor(status)), method, path]
        if let milliseconds = object["durationMs"]?.numberValue {
            parts.append(milliseconds < 10 ? "\(Self.decimal(milliseconds)) ms" : "\(Int(milliseconds.rounded())) ms")
        }
        if let bytes = object["bytes"]?.numberValue { parts.append(Self.size(bytes)) }
        if object["gzip"] == .bool(true) { parts.append("gzip") }
        return parts.joined(separator: " ")
    }

    private func finding(_ object: JSONObject, file: String, code: String) -> String {
        var location = directory.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + file } ?? file
        if let line = object["line"]?.intValue, let column = object["column"]?.intValue {
            location += ":\(line):\(column)"
        }
        let level = object["level"]?.stringValue ?? "error"
        let severity = paint(level, Self.levelColor(level))
        var text = "\(location): \(severity): \(code): \(object["detail"]?.stringValue ?? "")"
        if let message = object["message"]?.stringValue, let note = message.split(separator: ": ", maxSplits: 1).last,
            message.hasPrefix("reload: ")
        {
            text += " (\(note))"
        }
        return text
    }

    private func event(_ object: JSONObject) -> String {
        let level = object["level"]?.stringValue ?? "info"
        var parts = [clock(nil), paint(level, Self.levelColor(level)), object["message"]?.stringValue ?? ""]
        for member in object.members where member.key != "level" && member.key != "message" {
            parts.append("\(member.key)=\(Self.text(member.value))")
        }
        return parts.joined(separator: " ")
    }

    /// `HH:MM:SS` (UTC) of an access line's ISO 8601 `time`, else of now (events carry no time).
    private func clock(_ time: String?) -> String {
        let time = time ?? Date().formatted(.iso8601)
        guard let t = time.firstIndex(of: "T"), time.distance(from: t, to: time.endIndex) >= 9 else { return time }
        let start = time.index(after: t)
        return paint(String(time[start..<time.index(start, offsetBy: 8)]), "2")
    }

    private func paint(_ text: String, _ code: String?) -> String {
        guard color, let code else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    static func statusColor(_ status: Int) -> String {
        switch status {
        case ..<300: "32"  // green
        case ..<400: "36"  // cyan
        case ..<500: "33"  // yellow
        default: "1;31"  // bold red
        }
    }

    static func levelColor(_ level: String) -> String? {
        switch level {
        case "warning": "33"
        case "error": "1;31"
        default: nil
        }
    }

    /// A field's value: text as it is when it has no space, else quoted; other values as JSON.
    static func text(_ value: JSONValue) -> String {
        if case .string(let text) = value, !text.isEmpty, !text.contains(where: { $0 == " " || $0 == "\"" }) {
            return text
        }
        return String(decoding: JSONWriter().write(value), as: UTF8.self)
    }

    static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `512 B`, `3.4 kB`, `1.2 MB` (decimal units).
    static func size(_ bytes: Double) -> String {
        if bytes < 1_000 { return "\(Int(bytes)) B" }
        if bytes < 1_000_000 { return "\(decimal(bytes / 1_000)) kB" }
        return "\(decimal(bytes / 1_000_000)) MB"
    }
}
