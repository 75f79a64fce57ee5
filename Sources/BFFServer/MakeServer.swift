import Foundation
import HTTPCore
import PageModel

/// The server refuses to start: the catalog has error diagnostics.
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [FileDiagnostic]

    public var description: String {
        diagnostics.filter { $0.diagnostic.severity == .error }.map(\.description).joined(separator: "\n")
    }
}

/// `actions.redisURL` is set, but ``makeServer(configuration:catalog:log:httpLogger:idempotencyStore:)`` was given
/// no store for it.
public struct MissingIdempotencyStore: Error, Sendable, CustomStringConvertible {
    public var description: String {
        "actions.redisURL is set, but this program passes makeServer no idempotency store: link BFFRedis and pass "
            + "idempotencyStore: RedisIdempotencyStore.configured(by: configuration)"
    }
}

/// The one builder the CLI and the tests call: loads the catalog (unless given) and wires application and server.
///
/// - Parameters:
///   - log: where the access log and the server's log lines go.
///   - httpLogger: also told HTTPCore's error reports (and access entries, when it wants them).
///   - idempotencyStore: where `Idempotency-Key` answers are kept, given the application's logger; `nil` for the
///     in-memory store of one replica. BFFRedis's `RedisIdempotencyStore.configured(by:)` makes the shared one
///     `actions.redisURL` names.
/// - Throws: ``CatalogError`` when the catalog has error diagnostics (nothing is served then), unless it was loaded
///   `unchecked` for a contract-test corpus; ``MissingIdempotencyStore`` when `actions.redisURL` is set but no
///   store was given (a replica must not silently keep keys to itself).
public func makeServer(
    configuration: BFFConfiguration, catalog: PageCatalog? = nil, log: any BFFLogSink = StandardOutputLogSink(),
    httpLogger: any HTTPLogSink = HTTPNoopLogSink(),
    idempotencyStore: (@Sendable (Logger) -> (any IdempotencyStore)?)? = nil
) throws -> BFFService {
    var configuration = configuration
    if configuration.proxy.isEnabled {
        if let problem = ProxyTarget.problem(baseURL: configuration.proxy.upstream) {
            throw ConfigurationError(code: "invalid_value", key: "proxy.upstream", message: problem)
        }
        // Behind a proxy, what no local file declares may come from the upstream (docs/proxy.md).
        configuration.pages.referencesMayBeRemote = true
    }
    let catalog = catalog ?? PageCatalog.load(directory: configuration.pages.directory, defaults: configuration.pages)
    guard catalog.isUnchecked || !catalog.diagnostics.containsErrors else {
        throw CatalogError(diagnostics: catalog.diagnostics)
    }
    let application = BFFApplication(configuration: configuration, catalog: catalog, log: log)
    if let store = idempotencyStore?(application.log) {
        application.actions.idempotencyStore = store
    } else if !configuration.actions.redisURL.isEmpty {
        throw MissingIdempotencyStore()
    }
    var http = HTTPServer.Configuration(host: configuration.server.host, port: configuration.server.port)
    if configuration.server.workers > 0 { http.workerThreads = configuration.server.workers }
    http.eventLoop = configuration.server.eventLoop
    http.limits.maxBodySize = configuration.http.maximumActionBodyBytes
    http.limits.maxConnections = configuration.http.maximumConnections
    http.limits.reservedConnections = configuration.http.reservedProbeConnections
    http.timeouts.headerRead = .milliseconds(Int(configuration.http.headerTimeoutSeconds * 1000))
    http.timeouts.idle = .milliseconds(Int(configuration.http.idleTimeoutSeconds * 1000))
    if configuration.http.maximumConnectionAgeSeconds > 0 {
        http.timeouts.maximumConnectionAge = .milliseconds(Int(configuration.http.maximumConnectionAgeSeconds * 1000))
    }
    http.timeouts.drain = .milliseconds(Int(configuration.server.drainSeconds * 1000))
    let log = ApplicationHTTPLog(
        metrics: application.metrics, log: application.log, accessLog: configuration.logging.accessLog,
        forward: httpLogger, trustedProxies: Set(configuration.logging.trustedProxies))
    let responder = application.publicResponder()
    let server = HTTPServer(configuration: http, logger: log, responder: responder)
    // HTTPS beside HTTP: a second listener on the same application, with its own event loops.
    var developmentCA: DevelopmentCA.Outcome?
    let tlsServer = try configuration.tls.port.map { port in
        var secure = http
        secure.port = port
        var files = (certificate: configuration.tls.certificateFile, key: configuration.tls.keyFile)
        if configuration.tls.usesDevelopmentCA {
            let directory =
                configuration.tls.caDirectory.isEmpty ? DevelopmentCA.defaultDirectory() : configuration.tls.caDirectory
            let outcome = try DevelopmentCA(directory: directory).ensure()
            developmentCA = outcome
            files = (outcome.certificateFile, outcome.keyFile)
        }
        secure.tls = HTTPServer.Configuration.TLS(certificateChainFile: files.certificate, privateKeyFile: files.key)
        return HTTPServer(configuration: secure, logger: log, responder: responder)
    }
    let operationsServer = configuration.server.adminPort.map { port in
        var operations = HTTPServer.Configuration(host: configuration.server.host, port: port)
        operations.workerThreads = 1
        operations.eventLoop = http.eventLoop
        operations.limits.maxConnections = 256
        operations.limits.maxBodySize = 1024
        operations.timeouts = http.timeouts
        return HTTPServer(configuration: operations, logger: log, responder: application.operationsResponder())
    }
    return BFFService(
        application: application, server: server, tlsServer: tlsServer, developmentCA: developmentCA,
        operationsServer: operationsServer, watcher: application.makePageWatcher())
}
