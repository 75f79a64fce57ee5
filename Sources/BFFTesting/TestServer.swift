import BFFRedis
import BFFServer
import Foundation
import HTTPCore
import PageModel
import Synchronization

/// Starts a flow-bff server on an ephemeral loopback port, runs `body` with its base URL, then shuts it down.
///
/// - Parameters:
///   - pages: the pages directory (default: the repository's `pages/`, found from this file).
///   - configuration: the configuration to start from (port and host are forced to `127.0.0.1:0`).
///   - cursorKey: the cursor key, when the test needs a known one.
///   - catalog: a catalog loaded by the test (e.g. an `unchecked` corpus); by default `pages` is loaded.
///   - log: the access-log sink; by default lines are kept in memory and dropped.
public func withTestServer<Result>(
    pages: String? = nil, configuration: BFFConfiguration = BFFConfiguration(), cursorKey: String? = nil,
    catalog: PageCatalog? = nil, log: any BFFLogSink = MemoryLogSink(), _ body: (TestServer) async throws -> Result
) async throws -> Result {
    var configuration = configuration
    configuration.pages.directory = pages ?? TestServer.bundledPages
    if let cursorKey { configuration.cursors.key = cursorKey }
    configuration.server.host = configuration.server.host == "::1" ? "::1" : "127.0.0.1"
    configuration.server.port = 0
    if configuration.server.workers == 0 { configuration.server.workers = 2 }
    // scripts/test runs the live suites on both event loops.
    if let name = ProcessInfo.processInfo.environment["FLOW_BFF_SERVER_EVENT_LOOP"],
        let kind = HTTPServer.Configuration.EventLoopKind(rawValue: name)
    {
        configuration.server.eventLoop = kind
    }
    // The bundled pages are loaded once per configuration of them (their data templates cost ~0.1 s per load in a
    // debug build, which dozens of servers on one pinned core would spend again and again).
    let catalog = catalog ?? (pages == nil ? TestServer.bundledCatalog(configuration.pages) : nil)
    let service = try makeServer(
        configuration: configuration, catalog: catalog, log: log,
        idempotencyStore: RedisIdempotencyStore.configured(by: configuration))
    try service.start()
    let server = TestServer(service: service)
    do {
        let result = try await body(server)
        service.shutdown(gracePeriod: .zero)  // a test that set server.shutdownGraceSeconds does not wait for it
        await service.stoppedAsync()
        return result
    } catch {
        service.shutdown(gracePeriod: .zero)
        await service.stoppedAsync()
        throw error
    }
}

/// A running test server.
public struct TestServer: Sendable {
    public let service: BFFService

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { service.baseURL }
    public var port: Int { service.port }

    private static let bundledCatalogs = Mutex<[BFFConfiguration.Pages: PageCatalog]>([:])

    /// The bundled pages as `PageCatalog.load` reads them with `defaults`, loaded once per test process.
    static func bundledCatalog(_ defaults: BFFConfiguration.Pages) -> PageCatalog {
        if let catalog = bundledCatalogs.withLock({ $0[defaults] }) { return catalog }
        let catalog = PageCatalog.load(directory: bundledPages, defaults: defaults)
        bundledCatalogs.withLock { $0[defaults] = catalog }
        return catalog
    }

    /// The repository's bundled `pages/` directory.
    public static let bundledPages: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("pages").path
    }()
}
