import HTTPCore

/// The HTTP semantic-convention attributes of a server span, taken when it ends from what HTTPCore wrote (the
/// ``HTTPAccessLogEntry``) and written only when the span is encoded, as they are found: the `Host` field split into
/// `server.address` and `server.port`, the peer address into `client.address`, `User-Agent` found among the
/// request's fields. Recording a sampled request costs a few references, not ten attribute strings; the attributes
/// whose whole `KeyValue` is one of a few (the method, scheme, protocol version, route) are encoded once.
struct HTTPServerSpanFields: Sendable, Hashable {
    var method: HTTPMethod
    /// The target's path, not percent-decoded (``HTTPRequest/path``).
    var path: String
    var version: HTTPVersion
    var requestHeaders: HTTPFields
    /// The peer address (`127.0.0.1:53211`, `[::1]:53211`).
    var peer: String?
    /// The status written.
    var status: Int
    /// The route (`/v1/pages/{pageID}`), for the contract's routes.
    var route: ServerRoute?

    init(_ entry: borrowing HTTPAccessLogEntry, path: String, route: ServerRoute?) {
        method = entry.method
        self.path = path
        version = entry.version
        requestHeaders = entry.requestHeaders
        peer = entry.remoteAddress
        status = entry.status
        self.route = route
    }

    /// Gives `sink` each attribute: `url.path` first (``visitPath(_:_:)``, what changes from request to request),
    /// then the others (``visitRest(method:version:host:userAgent:peer:status:route:_:)``). Generic, so that the
    /// protobuf encoder writes each one where it is found (no attribute value made).
    func visitAttributes<Sink: HTTPSpanAttributeSink & ~Copyable>(_ sink: inout Sink) {
        Self.visitPath(path, &sink)
        let (host, userAgent) = requestHeaders.firstValues("Host", "User-Agent")
        Self.visitRest(
            method: method, version: version, host: host, userAgent: userAgent, peer: peer, status: status,
            route: route, &sink)
    }

    /// `url.path`.
    static func visitPath<Sink: HTTPSpanAttributeSink & ~Copyable>(_ path: String, _ sink: inout Sink) {
        sink.attribute(Key.urlPath, path)
    }

    /// The attributes but `url.path`, in the order of the semantic conventions' tables: `http.request.method`,
    /// `url.scheme`, `network.protocol.version`, `server.address` and `server.port` (of `host`, the `Host` field),
    /// `user_agent.original`, `client.address` (of the peer), `http.response.status_code`, `http.route`, and
    /// `error.type` for a 5xx. What a lane's span template holds (``ServerSpanTemplate``).
    static func visitRest<Sink: HTTPSpanAttributeSink & ~Copyable>(
        method: HTTPMethod, version: HTTPVersion, host: String?, userAgent: String?, peer: String?, status: Int,
        route: ServerRoute?, _ sink: inout Sink
    ) {
        if method == .get {
            sink.attribute(Self.get)
        } else if method == .post {
            sink.attribute(Self.post)
        } else {
            sink.attribute(Key.httpRequestMethod, method.rawValue)
        }
        sink.attribute(Self.scheme)
        sink.attribute(version.minor == 0 ? Self.version10 : Self.version11)
        if let host { sink.serverAuthority(host) }
        if let userAgent { sink.attribute(Key.userAgentOriginal, userAgent) }
        if let peer {
            ProtobufWriter.withUTF8(peer) { bytes in
                guard let (address, _) = Authority.split(bytes) else { return }
                sink.attribute(Key.clientAddress, utf8: UnsafeBufferPointer(rebasing: bytes[address]))
            }
        }
        if status == 200 {
            sink.attribute(Self.ok)
        } else {
            sink.attribute(Key.httpResponseStatusCode, int: status)
        }
        if let route { sink.attribute(route.attribute) }
        if status >= 500 { sink.attribute(Key.errorType, String(status)) }
    }

    /// `server.address` and `server.port` of a `Host` field.
    static func writeServerAuthority<Sink: HTTPSpanAttributeSink & ~Copyable>(_ host: String, to sink: inout Sink) {
        ProtobufWriter.withUTF8(host) { bytes in
            guard let (address, port) = Authority.split(bytes) else { return }
            sink.attribute(Key.serverAddress, utf8: UnsafeBufferPointer(rebasing: bytes[address]))
            if let port { sink.attribute(Key.serverPort, int: port) }
        }
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

        mutating func attribute(_ constant: ConstantAttribute) { attributes.append(constant.attribute) }

        mutating func serverAuthority(_ host: String) { HTTPServerSpanFields.writeServerAuthority(host, to: &self) }
    }

    /// `http.request.method` of the contract's two methods, `url.scheme` and `network.protocol.version`, encoded
    /// once.
    private static let get = ConstantAttribute(SemanticAttribute.httpRequestMethod, HTTPMethod.get.rawValue)
    private static let post = ConstantAttribute(SemanticAttribute.httpRequestMethod, HTTPMethod.post.rawValue)
    /// `http.response.status_code` 200, the status answered most, encoded once.
    private static let ok = ConstantAttribute(SemanticAttribute.httpResponseStatusCode, 200)
    private static let scheme = ConstantAttribute(SemanticAttribute.urlScheme, "http")
    private static let version10 = ConstantAttribute(SemanticAttribute.networkProtocolVersion, "1.0")
    private static let version11 = ConstantAttribute(SemanticAttribute.networkProtocolVersion, "1.1")

    /// The keys, encoded once.
    private enum Key {
        static let httpRequestMethod = AttributeKey(SemanticAttribute.httpRequestMethod)
        static let urlPath = AttributeKey(SemanticAttribute.urlPath)
        static let serverAddress = AttributeKey(SemanticAttribute.serverAddress)
        static let serverPort = AttributeKey(SemanticAttribute.serverPort)
        static let userAgentOriginal = AttributeKey(SemanticAttribute.userAgentOriginal)
        static let clientAddress = AttributeKey(SemanticAttribute.clientAddress)
        static let httpResponseStatusCode = AttributeKey(SemanticAttribute.httpResponseStatusCode)
        static let errorType = AttributeKey(SemanticAttribute.errorType)
    }

    static func == (left: Self, right: Self) -> Bool { left.attributes == right.attributes }

    func hash(into hasher: inout Hasher) { hasher.combine(attributes) }
}

/// Where ``HTTPServerSpanFields/visitAttributes(_:)`` puts each attribute.
protocol HTTPSpanAttributeSink: ~Copyable {
    mutating func attribute(_ key: AttributeKey, utf8 value: UnsafeBufferPointer<UInt8>)
    mutating func attribute(_ key: AttributeKey, int value: Int)
    /// An attribute whose whole `KeyValue` was encoded once.
    mutating func attribute(_ constant: ConstantAttribute)
    /// `server.address` and `server.port` of the `Host` field `host`
    /// (``HTTPServerSpanFields/writeServerAuthority(_:to:)``, or what it wrote for the same field before).
    mutating func serverAuthority(_ host: String)
}

extension HTTPSpanAttributeSink where Self: ~Copyable {
    mutating func attribute(_ key: AttributeKey, _ value: String) {
        ProtobufWriter.withUTF8(value) { attribute(key, utf8: $0) }
    }
}

/// The trace context of a request (`traceparent`, and `tracestate` when there is one): two lookups that borrow
/// each field name in place (``HTTPFields/subscript(_:)``). A pass over the fields by value would retain and release
/// both strings of every field — 12 of a server span's ~70 reference-count operations.
struct RequestTraceFields {
    var traceparent: String?
    var tracestate: String?

    init(_ fields: borrowing HTTPFields) {
        traceparent = fields["traceparent"]
        // No `tracestate` without a `traceparent` (W3C Trace Context): it would not be used.
        tracestate = traceparent == nil ? nil : fields["tracestate"]
    }
}
