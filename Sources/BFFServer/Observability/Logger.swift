import PageModel

/// The server's one log API: structured JSON lines `{"level","message",<fields>…}` written to a ``BFFLogSink``
/// (fields in the order given, like swift-log's metadata). The access log (``AccessLogLine``) is the only other
/// kind of line, written to the same sink.
public struct Logger: Sendable {
    public enum Level: String, Sendable {
        case info, warning, error
    }

    public let sink: any BFFLogSink

    public init(sink: any BFFLogSink) { self.sink = sink }

    public func info(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) {
        write(.info, message, fields)
    }

    public func warning(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) {
        write(.warning, message, fields)
    }

    public func error(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) {
        write(.error, message, fields)
    }

    public func write(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, JSONValue>) {
        var object = JSONObject()
        object["level"] = .string(level.rawValue)
        object["message"] = .string(message)
        for (key, value) in fields { object[key] = value }
        sink.write(String(decoding: JSONWriter().write(.object(object)), as: UTF8.self))
    }
}
