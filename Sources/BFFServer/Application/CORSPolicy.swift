import HTTPCore

/// Which browser origins may call the server from another origin (`http.corsOrigins`): a web client or a preview
/// served by a dev server on another port. Answers preflight `OPTIONS` requests itself and adds
/// `Access-Control-Allow-Origin: <origin>` (with `Vary: Origin`) to every answer to an allowed origin; requests from
/// other origins get no CORS field at all, so the browser refuses to hand their answers to the page.
struct CORSPolicy: Sendable, Hashable {
    /// Exact origins (`https://app.example.com`), origins with any port (`http://localhost:*`), or `*`.
    var origins: [String]

    /// Loopback origins on any port, over HTTP and HTTPS (a dev server with its own certificate, or the mock's HTTPS
    /// port): the mock backend's default.
    static let loopback = [
        "http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*",
        "https://localhost:*", "https://127.0.0.1:*", "https://[::1]:*",
    ]

    static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    static let allowedHeaders =
        (["Content-Type", "Accept", "Accept-Language", "Authorization", "If-None-Match", "Idempotency-Key"]
        + [FlowHeader.client, FlowHeader.session, FlowHeader.scenario, FlowHeader.mock, FlowHeader.admin]
        + [FlowHeader.requestID]).joined(separator: ", ")
    /// Response fields a script may read besides the CORS-safelisted ones.
    static let exposedHeaders =
        (["ETag", "Retry-After", FlowHeader.requestID, FlowHeader.scenario, FlowHeader.scenarioMissing]
        + [FlowHeader.mockApplied, FlowHeader.mockStale]).joined(separator: ", ")
    static let maxAgeSeconds = "600"

    /// The configured origins, else the loopback origins in mock mode and none in production.
    init(configuration: BFFConfiguration) {
        origins = configuration.http.corsOrigins ?? (configuration.mock.enabled ? Self.loopback : [])
    }

    init(origins: [String]) { self.origins = origins }

    var isEmpty: Bool { origins.isEmpty }

    /// Whether `origin` (an `Origin` field value) is allowed.
    func allows(_ origin: String) -> Bool {
        origins.contains { Self.matches(origin, pattern: $0) }
    }

    /// `*` matches any origin; `scheme://host:*` that origin with any port (digits only) or none; anything else
    /// only itself (ASCII case-insensitive, as origins are).
    static func matches(_ origin: String, pattern: String) -> Bool {
        if pattern == "*" { return true }
        let origin = origin.lowercased()
        let pattern = pattern.lowercased()
        guard pattern.hasSuffix(":*") else { return origin == pattern }
        let prefix = pattern.dropLast(2)
        guard origin.hasPrefix(prefix) else { return false }
        let rest = origin.dropFirst(prefix.count)
        if rest.isEmpty { return true }
        guard rest.first == ":" else { return false }
        let port = rest.dropFirst()
        return !port.isEmpty && port.count <= 5 && port.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The `204` answer to a preflight from an allowed origin.
    func preflight(origin: String) -> HTTPResponse {
        var response = HTTPResponse(status: .noContent)
        response.headers.set("Access-Control-Allow-Origin", origin)
        response.headers.set("Access-Control-Allow-Methods", Self.allowedMethods)
        response.headers.set("Access-Control-Allow-Headers", Self.allowedHeaders)
        response.headers.set("Access-Control-Max-Age", Self.maxAgeSeconds)
        response.headers.set("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// `response` as answered to the allowed `origin`.
    static func allowing(_ origin: String, _ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.set("Access-Control-Allow-Origin", origin)
        response.headers.set("Access-Control-Expose-Headers", exposedHeaders)
        response.headers.append("Vary", "Origin")
        return response
    }
}
