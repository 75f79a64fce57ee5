import PageModel

/// The server's one log API: structured JSON lines `{"level","message",<fields>…}` written to a ``BFFLogSink``
/// (fields in the order given, like swift-log's metadata). The access log (``AccessLogLine``) is the only other
/// kind of line, written to the same sink.
public struct Logger: Sendable {
    public enum Level: String, Sendable {
        case info, warning, error
    }

    public let sink: any BFFLogSink
    /// Fields every line of this logger carries first (``with(_:_:)``), like swift-log's metadata.
    public private(set) var metadata: [(key: String, value: JSONValue)] = []

    public init(sink: any BFFLogSink) { self.sink = sink }

    /// This logger with `key` set to `value` on every line (a request's logger carries its `requestID`).
    public func with(_ key: String, _ value: JSONValue) -> Logger {
        var logger = self
        logger.metadata.removeAll { $0.key == key }
        logger.metadata.append((key, value))
        return logger
    }

    /// The string value of the metadata field `key`.
    public func metadataValue(_ key: String) -> String? {
        metadata.first { $0.key == key }?.value.stringValue
    }

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
        for (key, value) in metadata { object[key] = value }
        for (key, value) in fields { object[key] = value }
        sink.write(String(decoding: JSONWriter().write(.object(object)), as: UTF8.self))
    }
}
