import BFFRedis
import BFFServer
import HTTPCore
import HTTPTesting
import PageModel

/// Builds the server `withTestServer` would start, but starts nothing: `body` gets an ``HTTPResponderClient`` that
/// sends requests straight into its responder chain (CORS → mock → preview → routes) — no socket, no event loop, no
/// page watcher. Fast tests of routing, problems and the mock use it; the access log and `/metrics` (fed by what
/// the server writes) and anything of the wire need `withTestServer`.
///
/// The parameters are `withTestServer`'s.
public func withTestApplication<Result>(
    pages: String? = nil, configuration: BFFConfiguration = BFFConfiguration(), cursorKey: String? = nil,
    catalog: PageCatalog? = nil, log: any BFFLogSink = MemoryLogSink(),
    _ body: (HTTPResponderClient) async throws -> Result
) async throws -> Result {
    var configuration = configuration
    configuration.pages.directory = pages ?? TestServer.bundledPages
    if let cursorKey { configuration.cursors.key = cursorKey }
    let service = try makeServer(
        configuration: configuration, catalog: catalog, log: log,
        idempotencyStore: RedisIdempotencyStore.configured(by: configuration))
    return try await body(HTTPResponderClient(service.server.responder))
}
