import Dispatch
import HTTPCore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Graceful shutdown")
struct ShutdownTests {
    @Test(.timeLimit(.minutes(1)))
    func sigtermDrainsInFlightRequestsAndRefusesNewConnections() throws {
        let promises = Mutex<[HTTPPromise]>([])
        let handlerEntered = DispatchSemaphore(value: 0)
        var router = Router()
        router.get("/slow") { _ in
            .deferred { promise in
                promises.withLock { $0.append(promise) }
                handlerEntered.signal()
            }
        }
        router.get("/fast") { _ in .text("fast") }
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.workerThreads = 2
        let server = HTTPServer(configuration: configuration, responder: router)
        try server.start()
        let signalled = DispatchSemaphore(value: 0)
        server.installSignalHandlers([SIGTERM], drainTimeout: .seconds(10)) { _ in signalled.signal() }

        let idle = try TestClient(port: server.port)
        try idle.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try idle.readResponse()?.text == "fast")

        var inFlight: [TestClient] = []
        for _ in 0..<5 {
            let client = try TestClient(port: server.port)
            try client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            inFlight.append(client)
        }
        for _ in 0..<5 { #expect(handlerEntered.wait(timeout: .now() + 5) == .success) }

        kill(getpid(), SIGTERM)
        #expect(signalled.wait(timeout: .now() + 5) == .success)

        #expect(throws: SystemError(function: "connect", errno: ECONNREFUSED)) {
            _ = try TestClient(port: server.port)
        }
        // The idle keep-alive connection is closed by the drain.
        #expect(try idle.isClosedByPeer())
        #expect(server.isRunning)

        for promise in promises.withLock({ $0 }) { promise.succeed(.text("done")) }
        for client in inFlight {
            let response = try #require(try client.readResponse())
            #expect(response.status == 200)
            #expect(response.text == "done")
            #expect(response.headers["Connection"] == "close")
            #expect(try client.isClosedByPeer())
        }
        #expect(server.waitUntilStopped(timeout: .seconds(5)))
        #expect(!server.isRunning)
        #expect(server.statistics.responsesSent == 6)
    }

    @Test(.timeLimit(.minutes(1)))
    func drainTimeoutClosesStuckConnections() async throws {
        // The handler keeps its promise without completing it: a stuck request.
        let stuck = Mutex<[HTTPPromise]>([])
        let entered = DispatchSemaphore(value: 0)
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { _ in
            .deferred { promise in
                stuck.withLock { $0.append(promise) }
                entered.signal()
            }
        }
        try server.start()
        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(entered.wait(timeout: .now() + 5) == .success)
        server.shutdown(drainTimeout: .milliseconds(200))
        await server.stoppedAsync()
        #expect(try client.readResponse() == nil)
        stuck.withLock { $0.removeAll() }
    }
}
