import Foundation
import HTTPCore
import PageModel
import Synchronization

/// The flow-bff application: routes, the catalog snapshot, cursors, metrics and the access log, as an
/// ``HTTPResponder`` that ``HTTPServer`` drives. Stateless across requests apart from caches: any replica with the
/// same pages and cursor key answers any request the same way.
public final class BFFApplication: HTTPResponder {
    public let configuration: BFFConfiguration
    let cursors: CursorCodec
    let metrics = Metrics()
    let verifiedCursors = VerifiedCursorCache()
    /// Programmatic pages (Providers/): register with `providers.register(_:options:_:)`.
    public let providers = PageProviders()
    let log: any BFFLogSink
    /// Mock-backend state; `nil` in production (`mock.enabled` false): then nothing mock runs.
    let mock: MockState?
    private let current: Mutex<CatalogSnapshot>
    private let ready = Atomic<Bool>(true)
    private let openConnections = Mutex<@Sendable () -> Int>({ 0 })
    // Written once at the end of init, before the object is shared; read-only afterwards.
    private nonisolated(unsafe) var router = Router()

    /// - Parameters:
    ///   - configuration: the server's configuration (cursor keys, limits, logging).
    ///   - catalog: the pages to serve; pages with error diagnostics are never in a catalog's servable set.
    ///   - log: where access-log lines go.
    public init(configuration: BFFConfiguration, catalog: PageCatalog, log: any BFFLogSink) {
        self.configuration = configuration
        let cursors =
            configuration.cursors.key.map {
                CursorCodec(
                    key: $0, previousKeys: configuration.cursors.previousKeys,
                    maximumLength: configuration.cursors.maximumLength)
            } ?? CursorCodec.ephemeral()
        self.cursors = cursors
        self.log = log
        current = Mutex(CatalogSnapshot(catalog: catalog, cursors: cursors))
        mock =
            configuration.mock.enabled
            ? MockState(configuration: configuration.mock, diagnostics: catalog.diagnostics) : nil
        metrics.catalogLoaded(
            version: catalog.version, errors: catalog.diagnostics.filter { $0.diagnostic.severity == .error }.count)
        var routes = makeRouter()
        if mock != nil { addMockRoutes(to: &routes) }
        router = routes
    }

    /// The catalog being served.
    public var catalog: PageCatalog { snapshot.catalog }

    var snapshot: CatalogSnapshot { current.withLock { $0 } }

    /// Serves `catalog` from now on; requests in flight finish with the snapshot they started with.
    public func replaceCatalog(_ catalog: PageCatalog) {
        let next = CatalogSnapshot(catalog: catalog, cursors: cursors)
        current.withLock { $0 = next }
        metrics.catalogLoaded(
            version: catalog.version, errors: catalog.diagnostics.filter { $0.diagnostic.severity == .error }.count)
    }

    /// Marks the server not ready (`/readyz` → 503), e.g. while draining for shutdown.
    public func setReady(_ isReady: Bool) { ready.store(isReady, ordering: .relaxed) }

    /// Lets `/metrics` report the HTTP server's open connections.
    public func reportOpenConnections(_ count: @escaping @Sendable () -> Int) {
        openConnections.withLock { $0 = count }
    }

    // MARK: Responder

    public func respond(to request: HTTPRequest) throws -> HTTPReply {
        if let mock { return try respondSimulating(request, mock: mock) }
        return try serve(request)
    }

    /// Routes `request` with request id, metrics and access log.
    func serve(_ request: HTTPRequest) throws -> HTTPReply {
        let start = DispatchTime.now().uptimeNanoseconds
        metrics.inFlight.add(1, ordering: .relaxed)
        defer { metrics.inFlight.subtract(1, ordering: .relaxed) }
        let requestID = RequestID.accept(request.headers["X-Request-ID"])
        // Provider pages answer later, from a Task (Providers/BFFApplication+Providers.swift).
        if let reply = providerReply(for: request, requestID: requestID, start: start) { return reply }
        var route = "unmatched"
        var response: HTTPResponse
        do {
            let routed = try router.respond(to: request)
            guard case .response(let answer) = routed else { return routed }
            response = answer
            route = response.headers["X-Flow-Route"] ?? route
            response.headers.remove("X-Flow-Route")
        } catch let problem as ProblemDetails {
            response = problem.response
        } catch let error as HTTPError {
            response = Self.problem(for: error, request: request, catalog: snapshot.catalog).response
            for field in error.headers { response.headers.set(field.name, field.value) }
        } catch {
            log.write(
                "{\"level\":\"error\",\"requestID\":\"\(requestID)\",\"message\":\(AccessLogLine.quoted(String(describing: error)))}"
            )
            response = Self.internalError(requestID: requestID).response
        }
        return .response(finish(response, request: request, requestID: requestID, start: start, route: route))
    }

    /// The 500 answered for an unexpected error: it names the request id the log line carries, nothing else.
    static func internalError(requestID: String) -> ProblemDetails {
        ProblemDetails(
            status: 500, code: "internal_error", title: "Internal error", detail: "The request ID is \(requestID).")
    }

    /// The status and body size the server will send for `response` (a prepared body may become a 304 or gzip).
    static func outcome(of response: HTTPResponse, for request: HTTPRequest) -> (Int, Int) {
        switch response.body {
        case .prepared(let body):
            if let tags = request.headers["If-None-Match"], body.matches(ifNoneMatch: tags) { return (304, 0) }
            if AcceptEncoding.prefersGzip(request.headers["Accept-Encoding"]), let gzip = body.gzipBytes {
                return (response.status.code, gzip.count)
            }
            return (response.status.code, body.identityBytes.count)
        case .bytes(let bytes): return (response.status.code, bytes.count)
        case .empty, .stream: return (response.status.code, 0)
        }
    }

    /// Maps HTTPCore's router errors to the contract's problem codes, with a near-miss hint on 404s.
    static func problem(for error: HTTPError, request: HTTPRequest, catalog: PageCatalog) -> ProblemDetails {
        switch error.status.code {
        case 404:
            var detail = "There is no route for \(request.path)."
            let routes = [
                "/v1/pages/{pageID}", "/v1/pages/{pageID}/next", "/v1/actions/{name}", "/healthz", "/readyz",
                "/metrics", "/openapi.json",
            ]
            if let closest = NearMiss.closest(to: request.path, among: routes) { detail += " Did you mean \(closest)?" }
            return ProblemDetails(status: 404, code: "not_found", title: "Not found", detail: detail)
        case 405:
            return ProblemDetails(
                status: 405, code: "method_not_allowed", title: "Method not allowed", detail: error.detail)
        default:
            return ProblemDetails(
                status: error.status.code, code: error.code.replacingOccurrences(of: "-", with: "_"),
                title: error.title,
                detail: error.detail)
        }
    }

    // MARK: Routes

    func makeRouter() -> Router {
        var router = Router()
        router.get("/v1/pages/{pageID}", route("page", servePage))
        router.get("/v1/pages/{pageID}/next", route("nextPage", serveNextPage))
        router.post("/v1/pages/{pageID}/next", route("nextPage", serveNextPage))
        router.post("/v1/actions/{name}", route("action", serveAction))
        router.get(
            "/healthz",
            route("healthz") { _ in .json(Array(#"{"status":"ok"}"#.utf8), headers: ["Cache-Control": "no-store"]) })
        router.get("/readyz", route("readyz", serveReady))
        router.get("/metrics", route("metrics", serveMetrics))
        router.get(
            "/openapi.json",
            route("openapi") { _ in
                HTTPResponse.prepared(OpenAPIDocument.prepared, headers: ["Cache-Control": "no-cache"])
            })
        return router
    }

    /// Labels a handler's responses with its route name for metrics and the access log.
    func route(_ name: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> Router.Handler {
        { request in
            var response: HTTPResponse
            do { response = try handler(request) } catch let problem as ProblemDetails { response = problem.response }
            response.headers.set("X-Flow-Route", name)
            return .response(response)
        }
    }

    func serveReady(_ request: HTTPRequest) throws -> HTTPResponse {
        guard ready.load(ordering: .relaxed) else { throw ProblemDetails.notReady }
        let catalog = snapshot.catalog
        let body = #"{"status":"ready","pages":\#(catalog.pages.count),"catalogVersion":"\#(catalog.version)"}"#
        return .json(Array(body.utf8), headers: ["Cache-Control": "no-store"])
    }

    func serveMetrics(_ request: HTTPRequest) throws -> HTTPResponse {
        guard configuration.logging.metrics else { throw HTTPError(.notFound, code: "not_found") }
        let connections = openConnections.withLock { $0 }()
        return .bytes(
            Array((metrics.render(openConnections: connections) + providers.renderMetrics()).utf8),
            contentType: "text/plain; version=0.0.4; charset=utf-8",
            headers: ["Cache-Control": "no-store"])
    }
}
