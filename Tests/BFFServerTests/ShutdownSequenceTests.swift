import BFFServer
import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `server.shutdownGraceSeconds`: a shutdown turns `/readyz` 503 on both listeners at once while the public one
/// still accepts and serves for the grace period, then refuses new connections and drains (docs/operations.md,
/// "Health, readiness and graceful shutdown").
@Suite struct ShutdownSequenceTests {
    static var kinds: [HTTPServer.Configuration.EventLoopKind] {
        #if os(Linux)
            [.epoll, .dispatch]
        #else
            [.dispatch]
        #endif
    }

    @Test(.timeLimit(.minutes(1)), arguments: kinds)
    func readinessFailsWhileTheGracePeriodStillServes(_ kind: HTTPServer.Configuration.EventLoopKind) async throws {
        var configuration = BFFConfiguration()
        configuration.server.eventLoop = kind
        configuration.server.adminPort = 0
        configuration.server.shutdownGraceSeconds = 600
        configuration.server.drainSeconds = 20
        let log = MemoryLogSink()
        try await withTestServer(configuration: configuration, log: log) { server in
            let operations = HTTPTestClient(port: try #require(server.service.operationsServer?.port))
            #expect(try await operations.get("/readyz").status == 200)
            let drainStarted = TestSignal()
            server.service.server.onDrainStart { drainStarted.signal() }

            server.service.shutdown()
            #expect(server.service.server.isInGracePeriod)
            #expect(try await operations.get("/readyz").status == 503)
            // New connections to the public port: the probe sees 503, a page is served, each connection ended.
            let probe = try await HTTPTestClient(port: server.port).get("/readyz")
            #expect(probe.status == 503)
            #expect(probe.text.contains("not_ready"))
            #expect(probe.header("Connection") == "close")
            let page = try await HTTPTestClient(port: server.port).get("/v1/pages/home")
            #expect(page.status == 200)
            #expect(page.header("Connection") == "close")
            #expect(drainStarted.count == 0)

            // What a second SIGTERM does: the drain begins at once, long before the 600 s are up.
            server.service.shutdown(gracePeriod: .zero)
            try await drainStarted.wait(timeout: .seconds(10))
            #expect(!server.service.server.isInGracePeriod)
            // The operations listener stays up while the public one drains, still not ready.
            #expect(try await operations.get("/readyz").status == 503)
        }
        let messages = log.lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["message"] as? String
        }
        #expect(
            messages.filter { $0.hasPrefix("shutdown") || $0.hasPrefix("draining") } == [
                "shutdown requested: not ready (/readyz 503); still accepting and serving for 600 s "
                    + "(server.shutdownGraceSeconds), every response Connection: close; then draining",
                "shutdown requested again: draining now",
                "draining: new connections refused, requests in flight get up to 20 s (server.drainSeconds)",
            ])
    }

    @Test func withoutAGracePeriodTheDrainBeginsAtOnce() async throws {
        let log = MemoryLogSink()
        try await withTestServer(log: log) { server in
            let drainStarted = TestSignal()
            server.service.server.onDrainStart { drainStarted.signal() }
            server.service.shutdown()
            try await drainStarted.wait(timeout: .seconds(10))
            #expect(!server.service.server.isInGracePeriod)
        }
        #expect(log.lines.contains { $0.contains("shutdown requested: not ready (/readyz 503); draining") })
    }

    @Test func theGracePeriodIsConfigured() throws {
        let configuration = try ConfigurationLoader().load(
            files: [], environment: ["FLOW_BFF_SERVER_SHUTDOWN_GRACE_SECONDS": "2.5"])
        #expect(configuration.server.shutdownGraceSeconds == 2.5)
        #expect(BFFConfiguration().server.shutdownGraceSeconds == 0)
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(files: [], environment: ["FLOW_BFF_SERVER_SHUTDOWN_GRACE_SECONDS": "-1"])
        }
    }
}
