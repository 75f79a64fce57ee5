import HTTPCore
import PageModel
import Synchronization

/// The flow-bff application: what its routes share — the served catalog snapshot, cursors, providers and
/// handlers, metrics and the log — and three route groups that each name what they read: ``PageRoutes`` (the
/// page pipeline), ``ActionRoutes`` and ``OperationalRoutes``. Its routes are a ``ContextRouter`` the responder
/// chain ends in, composed in `makeServer`. Stateless across requests apart from caches: any replica with the same
/// pages and cursor key answers any request the same way.
///
/// One pipeline serves every page (docs/architecture.md): a ``PageLookup`` names the document (file page, mock
/// scenario or session copy, Swift provider), ``Representation`` turns (document, position, client variant) into
/// prepared bytes, cached once per content version. Mock mode is a responder in front of the routes
/// (``MockLayer``), composed only when `mock.enabled`.
public final class BFFApplication: Sendable {
    public let configuration: BFFConfiguration
    let cursors: CursorCodec
    let metrics = Metrics()
    /// Every metric family `/metrics` writes: requests, providers and upstreams, actions and the idempotency store.
    let metricsRegistry = MetricsRegistry()
    /// Programmatic pages (Providers/): register with `providers.register(_:options:_:)`.
    public let providers: PageProviders
    /// Api actions answered in Swift (Actions/): register with `actions.register(_:options:_:)`.
    public let actions = ActionHandlers()
    let log: Logger
    let reload = ReloadState()
    let served: ServedSnapshot
    /// Reads request bodies for the page, action and admin routes (`http.maximumActionBodyBytes`).
    let bodyReader: JSONBodyReader
    let pageRoutes: PageRoutes
    let actionRoutes: ActionRoutes
    let operationalRoutes: OperationalRoutes
    private let ready = ReadySwitch()
    private let openConnections = Mutex<@Sendable () -> Int>({ 0 })
    /// What mock mode remembers between requests (sessions, journal, faults); `nil` in production.
    let mock: MockState?
    /// Starts the spans of traced requests (`tracing.enabled`, docs/operations.md "Tracing"); `nil` when off.
    let tracer: Tracer?
    /// Where the tracer's spans are batched and exported; `nil` when tracing is off.
    public let spanExporter: OTLPSpanExporter?
    /// Forwards what no local file or code answers to `proxy.upstream` (docs/proxy.md); `nil` when none is set.
    let proxy: Proxy?

    /// - Parameters:
    ///   - configuration: the server's configuration (cursor keys, limits, logging, mock mode).
    ///   - catalog: the pages to serve; pages with error diagnostics are never in a catalog's servable set.
    ///   - log: where log lines (access log, reloads, errors) go.
    public init(configuration: BFFConfiguration, catalog: PageCatalog, log: any BFFLogSink) {
        self.configuration = configuration
        let cursors =
            configuration.cursors.key.map {
                CursorCodec(
                    key: $0, previousKeys: configuration.cursors.previousKeys,
                    maximumLength: configuration.cursors.maximumLength)
            } ?? CursorCodec.ephemeral()
        self.cursors = cursors
        self.log = Logger(sink: log)
        if configuration.tracing.enabled {
            let exporter = OTLPSpanExporter(configuration: configuration.tracing, log: self.log)
            spanExporter = exporter
            tracer = Tracer(sampler: configuration.tracing.traceSampler, sink: exporter)
        } else {
            spanExporter = nil
            tracer = nil
        }
        let mock = configuration.mock.enabled ? MockState(configuration: configuration.mock) : nil
        self.mock = mock
        let providers = PageProviders()
        self.providers = providers
        proxy =
            configuration.proxy.isEnabled
            ? Proxy(
                configuration: configuration.proxy, pages: configuration.pages, mock: mock != nil,
                metrics: providers.upstreamMetrics, log: self.log) : nil
        let catalogLookup = CatalogLookup(providers: providers)
        let lookup: any PageLookup = mock.map { MockPageLookup(mock: $0, base: catalogLookup) } ?? catalogLookup
        let served = ServedSnapshot(CatalogSnapshot(catalog: catalog, cursors: cursors))
        self.served = served
        let bodyReader = JSONBodyReader(limit: configuration.http.maximumActionBodyBytes)
        self.bodyReader = bodyReader
        pageRoutes = PageRoutes(
            served: served, lookup: lookup, cursors: cursors,
            verifiedCursors: BoundedCache(capacity: 8_192),
            representations: BoundedCache(capacity: configuration.server.representationCacheEntries),
            providers: providers, defaults: configuration.pages, showsDiagnostics: configuration.mock.enabled,
            bodyReader: bodyReader, log: self.log)
        actionRoutes = ActionRoutes(
            served: served, lookup: lookup, actions: actions,
            idempotencySeconds: configuration.actions.idempotencySeconds,
            showsDiagnostics: configuration.mock.enabled, bodyReader: bodyReader, log: self.log)
        operationalRoutes = OperationalRoutes(
            served: served, providers: providers, listsScenarios: configuration.mock.enabled,
            metricsRegistry: metricsRegistry, servesMetrics: configuration.logging.metrics, ready: ready)
        reload.loaded(catalog)
        metrics.catalogLoaded(version: catalog.version, errors: catalog.diagnostics.errorCount)
        metricsRegistry.register { [unowned self] in metrics.families(openConnections: openConnectionCount) }
        metricsRegistry.register { [providers] in providers.families }
        metricsRegistry.register { [unowned self] in actions.families }
        metricsRegistry.register { [BuildInfo.family] + ProcessMetrics.families }
        metricsRegistry.register { [unowned self] in spanExporter?.families ?? [] }
        metricsRegistry.register { [unowned self] in proxy?.families ?? [] }
    }

    /// The catalog being served.
    public var catalog: PageCatalog { snapshot.catalog }

    var snapshot: CatalogSnapshot { served.snapshot }

    /// Serves `catalog` from now on; requests in flight finish with the snapshot they started with. Bodies of
    /// unchanged pages stay cached (they are keyed by content version).
    public func replaceCatalog(_ catalog: PageCatalog) {
        let next = CatalogSnapshot(catalog: catalog, cursors: cursors, reusing: snapshot)
        served.replace(with: next)
        metrics.catalogLoaded(version: catalog.version, errors: catalog.diagnostics.errorCount)
    }

    /// Marks the server not ready (`/readyz` → 503), e.g. while draining for shutdown.
    public func setReady(_ isReady: Bool) { ready.set(isReady) }

    var isReady: Bool { ready.isOn }

    /// Lets `/metrics` report the HTTP server's open connections.
    public func reportOpenConnections(_ count: @escaping @Sendable () -> Int) {
        openConnections.withLock { $0 = count }
    }

    var openConnectionCount: Int { openConnections.withLock { $0 }() }

    // MARK: Responder

    /// The answer to a request no route took: the router's 404 or 405 as the contract's problem.
    func unrouted(path: String, context: RequestContext, _ error: any Error) -> HTTPReply {
        metrics.inFlight.add(1, ordering: .relaxed)
        let answer: Result<HTTPResponse, any Error> =
            (error as? HTTPError).map { .success(Self.problem(for: $0, path: path)) } ?? .failure(error)
        return .response(finish(answer, route: "unmatched", requestID: context.requestID))
    }

    /// What a route handler answers: a response now, or one computed later in a task that runs on the event loop
    /// of the request's connection (``HTTPReply/task(_:)``): providers and handlers must not block.
    enum Answer: Sendable {
        case now(HTTPResponse)
        case later(@Sendable () async throws -> HTTPResponse)
    }

    /// A router handler for the route `name`: runs `handler` with the request's context and finishes its answer
    /// with the context's request id.
    func route(_ name: String, _ handler: @escaping @Sendable (HTTPRequest, RequestContext) throws -> Answer)
        -> ContextRouter<RequestContext>.Handler
    {
        { request, context in
            let requestID = context.requestID
            self.metrics.inFlight.add(1, ordering: .relaxed)
            do {
                return self.reply(try handler(request, context), route: name, requestID: requestID)
            } catch {
                return .response(self.finish(.failure(error), route: name, requestID: requestID))
            }
        }
    }

    /// The reply for a handler's answer. The answer is taken over, so the response inside is moved into the reply,
    /// not copied (each copy of a response retains and releases every reference it holds).
    private func reply(_ answer: consuming Answer, route name: String, requestID: String) -> HTTPReply {
        switch consume answer {
        case .now(var response):
            // Stamped in place: wrapping it in `finish`'s `Result` would copy it.
            metrics.inFlight.subtract(1, ordering: .relaxed)
            Self.stamp(&response, route: name, requestID: requestID)
            return .response(response)
        case .later(let work):
            return .task {
                let result: Result<HTTPResponse, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                return .response(self.finish(result, route: name, requestID: requestID))
            }
        }
    }

    /// The one exit of every answer: errors become their problem responses (anything unexpected a logged 500
    /// that names only the request id); the response gets `X-Request-ID` and the log context that the access log
    /// and metrics read back from what HTTPCore actually sent (Observability/ApplicationHTTPLog.swift).
    func finish(_ result: consuming Result<HTTPResponse, any Error>, route: String, requestID: String) -> HTTPResponse {
        metrics.inFlight.subtract(1, ordering: .relaxed)
        var response: HTTPResponse
        switch consume result {
        case .success(let answer):
            response = answer
        case .failure(let error as any HTTPResponseConvertible):
            response = error.makeResponse()
        case .failure(let error):
            log.error("request failed", ["requestID": .string(requestID), "error": .string(String(describing: error))])
            response = Self.internalError(requestID: requestID).makeResponse()
        }
        Self.stamp(&response, route: route, requestID: requestID)
        return response
    }

    /// Names the request on its response: `X-Request-ID`, and the log context the access log and metrics read.
    @inline(__always)
    private static func stamp(_ response: inout HTTPResponse, route: String, requestID: String) {
        response.requestID = requestID
        response.route = route
    }

    /// The 500 answered for an unexpected error: it names the request id the log line carries, nothing else.
    static func internalError(requestID: String) -> ProblemDetails {
        ProblemDetails(
            .internalError, detail: "The request ID is \(requestID).")
    }

    /// Maps HTTPCore's router errors to the contract's problem codes, with a near-miss hint on 404s (and `Allow`
    /// on 405s).
    static func problem(for error: HTTPError, path: String) -> HTTPResponse {
        var problem = ProblemDetails(
            status: error.status.code, code: error.code, title: error.title, detail: error.detail)
        switch error.status.code {
        case 404:
            var detail = "There is no route for \(path)."
            if let closest = NearMiss.closest(to: path, among: ContractRoute.all.map(\.template)) {
                detail += " Did you mean \(closest)?"
            }
            problem = ProblemDetails(.notFound, detail: detail)
        case 405:
            problem = ProblemDetails(
                .methodNotAllowed, detail: error.detail)
        default: break
        }
        var response = problem.makeResponse()
        for field in error.headers { response.headers.set(field.name, field.value) }
        return response
    }
}
