import Foundation
import HTTPCore
import HTTPTesting

/// A loopback, port 0, two-thread configuration adjusted by `configure`, on the event loop named by
/// `FLOW_BFF_SERVER_EVENT_LOOP` (`epoll` | `dispatch`; scripts/test runs the live suites on both), over HTTPS with
/// `FLOW_BFF_TEST_TLS=1`. Keep-alive connections stay open for 2 minutes unless a test sets `timeouts.idle`: between
/// two requests a test awaits the concurrency pool, which a loaded one-core machine can keep busy for longer than the
/// 30 s default.
func testConfiguration(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
    configuration.workerThreads = 2
    configuration.timeouts.idle = .seconds(120)
    configuration.eventLoop = testEventLoop
    // FLOW_BFF_TEST_TLS=1 (scripts/test): HTTPS, and every HTTPTestClient speaks TLS.
    if TestTLS.isOn { configuration.tls = TestTLS.serverTLS }
    configure(&configuration)
    return configuration
}

/// Starts a server, runs `body`, then shuts it down and awaits (without blocking) its stop.
func withServer(
    _ configuration: HTTPServer.Configuration = testConfiguration(), logger: any HTTPLogSink = HTTPNoopLogSink(),
    responder: some HTTPResponder, _ body: (HTTPServer) async throws -> Void
) async throws {
    let server = HTTPServer(configuration: configuration, logger: logger, responder: responder)
    try server.start()
    do {
        try await body(server)
    } catch {
        server.shutdown(drainTimeout: .seconds(2))
        await server.stoppedAsync()
        throw error
    }
    server.shutdown(drainTimeout: .seconds(2))
    await server.stoppedAsync()
}

/// The event loop the live tests run on: `FLOW_BFF_SERVER_EVENT_LOOP`, else the platform's default.
let testEventLoop: HTTPServer.Configuration.EventLoopKind = {
    guard let name = ProcessInfo.processInfo.environment["FLOW_BFF_SERVER_EVENT_LOOP"] else { return .platformDefault }
    guard let kind = HTTPServer.Configuration.EventLoopKind(rawValue: name) else {
        fatalError("FLOW_BFF_SERVER_EVENT_LOOP=\(name): use epoll or dispatch")
    }
    return kind
}()
