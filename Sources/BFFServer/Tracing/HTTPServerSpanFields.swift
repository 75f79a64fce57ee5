import HTTPCore

/// The HTTP semantic-convention attributes of a server span, kept as the request and response had them and made
/// into attributes only when the span is exported, off the event loop: the `Host` field split into
/// `server.address` and `server.port`, the peer address into `client.address`, `User-Agent` found among the
/// request's fields. Recording a sampled request costs the event loop a few references, not ten attribute strings.
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

    /// One attribute's value.
    enum Value {
        case string(String)
        case int(Int)
    }

    /// Calls `body` with each attribute, in the order of the semantic conventions' tables: `http.request.method`,
    /// `url.path`, `url.scheme`, `network.protocol.version`, `server.address`, `server.port`, `user_agent.original`,
    /// `client.address`, `http.response.status_code`, `http.route`, and `error.type` for a 5xx.
    func forEachAttribute(_ body: (String, Value) -> Void) {
        body(SemanticAttribute.httpRequestMethod, .string(method.rawValue))
        body(SemanticAttribute.urlPath, .string(path))
        body(SemanticAttribute.urlScheme, .string("http"))
        body(SemanticAttribute.networkProtocolVersion, .string(version.minor == 0 ? "1.0" : "1.1"))
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
        if let host, let authority = Authority(host) {
            body(SemanticAttribute.serverAddress, .string(authority.host))
            if let port = authority.port { body(SemanticAttribute.serverPort, .int(port)) }
        }
        if let userAgent { body(SemanticAttribute.userAgentOriginal, .string(userAgent)) }
        if let peer, let address = Authority(peer) { body(SemanticAttribute.clientAddress, .string(address.host)) }
        guard status != 0 else { return }
        body(SemanticAttribute.httpResponseStatusCode, .int(status))
        if let route { body(SemanticAttribute.httpRoute, .string(route)) }
        if status >= 500 { body(SemanticAttribute.errorType, .string(String(status))) }
    }

    /// The attributes as ``SpanAttribute`` values (the JSON encoding; tests).
    var attributes: [SpanAttribute] {
        var attributes: [SpanAttribute] = []
        forEachAttribute { key, value in
            switch value {
            case .string(let string): attributes.append(.string(key, string))
            case .int(let int): attributes.append(.int(key, int))
            }
        }
        return attributes
    }

    static func == (left: Self, right: Self) -> Bool { left.attributes == right.attributes }

    func hash(into hasher: inout Hasher) { hasher.combine(attributes) }
}
