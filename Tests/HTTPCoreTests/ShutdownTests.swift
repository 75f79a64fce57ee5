import HTTPCore
import HTTPTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Graceful shutdown")
struct ShutdownTests {
    @Test(.timeLimit(.minutes(1)))
    func sigtermDrainsInFlightRequestsAndRefusesNewConnections() async throws {
        let promises = Mutex<[HTTPPromise]>([])
        let handlerEntered = TestSignal()
        var router = Router()
        router.get("/slow") { _ in
            .deferred { promise in
                promises.withLock { $0.append(promise) }
                handlerEntered.signal()
            }
        }
        router.get("/fast") { _ in .text("fast") }
        let server = HTTPServer(configuration: testConfiguration(), responder: router)
        try server.start()
        let signalled = TestSignal()
        server.installSignalHandlers([SIGTERM], drainTimeout: .seconds(10)) { _ in signalled.signal() }

        let idle = HTTPTestClient(port: server.port)
        try await idle.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try await idle.readResponse()?.text == "fast")

        var inFlight: [HTTPTestClient] = []
        for _ in 0..<5 {
            let client = HTTPTestClient(port: server.port)
            try await client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            inFlight.append(client)
        }
        try await handlerEntered.wait(for: 5)

        kill(getpid(), SIGTERM)
        try await signalled.wait()

        // At once on epoll; on the Dispatch loop moments later, once every loop stopped watching the listener.
        #expect(try await ShutdownGracePeriodTests.refusesConnections(port: server.port))
        // The idle keep-alive connection is closed by the drain.
        #expect(try await idle.isClosedByPeer())
        #expect(server.isRunning)

        for promise in promises.withLock({ $0 }) { promise.succeed(.text("done")) }
        for client in inFlight {
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(response.text == "done")
            #expect(response.headers["Connection"] == "close")
            #expect(try await client.isClosedByPeer())
        }
        await server.stoppedAsync()
        #expect(!server.isRunning)
        #expect(server.statistics.responsesSent == 6)
    }

    @Test(.timeLimit(.minutes(1)))
    func drainTimeoutClosesStuckConnections() async throws {
        // The handler keeps its promise without completing it: a stuck request.
        let stuck = Mutex<[HTTPPromise]>([])
        let entered = TestSignal()
        let server = HTTPServer(configuration: testConfiguration()) { _ in
            .deferred { promise in
                stuck.withLock { $0.append(promise) }
                entered.signal()
            }
        }
        try server.start()
        let client = HTTPTestClient(port: server.port)
        try await client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        try await entered.wait()
        server.shutdown(drainTimeout: .milliseconds(200))
        await server.stoppedAsync()
        #expect(try await client.readResponse() == nil)
        stuck.withLock { $0.removeAll() }
    }
}
