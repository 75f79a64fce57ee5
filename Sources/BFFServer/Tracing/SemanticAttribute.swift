/// The OpenTelemetry semantic-convention attribute names flow-bff's spans carry (HTTP server and client spans,
/// semantic conventions 1.26+), and its own under `flow_bff.`. One definition each: docs/operations.md lists them.
enum SemanticAttribute {
    static let httpRequestMethod = "http.request.method"
    static let httpResponseStatusCode = "http.response.status_code"
    static let httpRoute = "http.route"
    static let httpRequestResendCount = "http.request.resend_count"
    static let urlPath = "url.path"
    static let urlScheme = "url.scheme"
    static let urlFull = "url.full"
    static let serverAddress = "server.address"
    static let serverPort = "server.port"
    static let clientAddress = "client.address"
    static let userAgentOriginal = "user_agent.original"
    static let networkProtocolVersion = "network.protocol.version"
    static let errorType = "error.type"
    static let serviceName = "service.name"
    static let serviceVersion = "service.version"
    /// The upstream's configured name (``UpstreamConfiguration/name``) on a client span.
    static let upstream = "flow_bff.upstream"
    /// The page id on a provider span.
    static let page = "flow_bff.page"
    /// The action name on an action-handler span.
    static let action = "flow_bff.action"
}
