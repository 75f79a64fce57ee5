import HTTPCore

/// The HTTP semantic-convention attributes of a server span, kept as the request and response had them and written
/// only when the span is encoded, as they are found: the `Host` field split into `server.address` and
/// `server.port`, the peer address into `client.address`, `User-Agent` found among the request's fields. Recording
/// a sampled request costs a few references, not ten attribute strings.
struct HTTPServerSpanFields: Sendable, Hashable {
    var method: HTTPMethod
    /// The target's path, not percent-decoded (``HTTPRequest/path``).
    var path: String
    var version: HTTPVersion
    var requestHeaders: HTTPFields
    /// The peer address (`127.0.0.1:53211`, `[::1]:53211`).
    var peer: String?
    /// The status written; 0 until the span ends.
    var status = 0
    /// The route's template (`/v1/pages/{pageID}`), for the contract's routes.
    var route: String?

    init(_ request: borrowing HTTPRequest) {
        method = request.method
        path = request.path
        version = request.version
        requestHeaders = request.headers
        peer = request.remoteAddress
    }

    /// Gives `sink` each attribute, in the order of the semantic conventions' tables: `http.request.method`,
    /// `url.path`, `url.scheme`, `network.protocol.version`, `server.address`, `server.port`, `user_agent.original`,
    /// `client.address`, `http.response.status_code`, `http.route`, and `error.type` for a 5xx. Generic, so that
    /// the protobuf encoder writes each one where it is found (no attribute value made).
    func visitAttributes<Sink: HTTPSpanAttributeSink & ~Copyable>(_ sink: inout Sink) {
        sink.attribute(Key.httpRequestMethod, method.rawValue)
        sink.attribute(Key.urlPath, path)
        sink.attribute(Key.urlScheme, "http")
        sink.attribute(Key.networkProtocolVersion, version.minor == 0 ? "1.0" : "1.1")
        var host: String?
        var userAgent: String?
        for field in requestHeaders {
            switch field.name.utf8.count {
            case 4 where host == nil && field.name.asciiCaseInsensitiveEquals("Host"): host = field.value
            case 10 where userAgent == nil && field.name.asciiCaseInsensitiveEquals("User-Agent"):
                userAgent = field.value
            default: break
            }
        }
        if let host {
            ProtobufWriter.withUTF8(host) { bytes in
                guard let (address, port) = Authority.split(bytes) else { return }
                sink.attribute(Key.serverAddress, utf8: UnsafeBufferPointer(rebasing: bytes[address]))
                if let port { sink.attribute(Key.serverPort, int: port) }
            }
        }
        if let userAgent { sink.attribute(Key.userAgentOriginal, userAgent) }
        if let peer {
            ProtobufWriter.withUTF8(peer) { bytes in
                guard let (address, _) = Authority.split(bytes) else { return }
                sink.attribute(Key.clientAddress, utf8: UnsafeBufferPointer(rebasing: bytes[address]))
            }
        }
        guard status != 0 else { return }
        sink.attribute(Key.httpResponseStatusCode, int: status)
        if let route { sink.attribute(Key.httpRoute, route) }
        if status >= 500 { sink.attribute(Key.errorType, String(status)) }
    }

    /// The attributes as ``SpanAttribute`` values (the JSON encoding; tests).
    var attributes: [SpanAttribute] {
        var collector = Collector()
        visitAttributes(&collector)
        return collector.attributes
    }

    private struct Collector: HTTPSpanAttributeSink {
        var attributes: [SpanAttribute] = []

        mutating func attribute(_ key: AttributeKey, utf8 value: UnsafeBufferPointer<UInt8>) {
            attributes.append(.string(key.name, String(decoding: value, as: UTF8.self)))
        }

        mutating func attribute(_ key: AttributeKey, int value: Int) { attributes.append(.int(key.name, value)) }
    }

    /// The keys, encoded once.
    private enum Key {
        static let httpRequestMethod = AttributeKey(SemanticAttribute.httpRequestMethod)
        static let urlPath = AttributeKey(SemanticAttribute.urlPath)
        static let urlScheme = AttributeKey(SemanticAttribute.urlScheme)
        static let networkProtocolVersion = AttributeKey(SemanticAttribute.networkProtocolVersion)
        static let serverAddress = AttributeKey(SemanticAttribute.serverAddress)
        static let serverPort = AttributeKey(SemanticAttribute.serverPort)
        static let userAgentOriginal = AttributeKey(SemanticAttribute.userAgentOriginal)
        static let clientAddress = AttributeKey(SemanticAttribute.clientAddress)
        static let httpResponseStatusCode = AttributeKey(SemanticAttribute.httpResponseStatusCode)
        static let httpRoute = AttributeKey(SemanticAttribute.httpRoute)
        static let errorType = AttributeKey(SemanticAttribute.errorType)
    }

    static func == (left: Self, right: Self) -> Bool { left.attributes == right.attributes }

    func hash(into hasher: inout Hasher) { hasher.combine(attributes) }
}

/// Where ``HTTPServerSpanFields/visitAttributes(_:)`` puts each attribute.
protocol HTTPSpanAttributeSink: ~Copyable {
    mutating func attribute(_ key: AttributeKey, utf8 value: UnsafeBufferPointer<UInt8>)
    mutating func attribute(_ key: AttributeKey, int value: Int)
}

extension HTTPSpanAttributeSink where Self: ~Copyable {
    mutating func attribute(_ key: AttributeKey, _ value: String) {
        ProtobufWriter.withUTF8(value) { attribute(key, utf8: $0) }
    }
}
