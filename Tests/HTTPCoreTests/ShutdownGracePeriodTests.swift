import HTTPTesting
import Synchronization
import Testing

@testable import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `shutdown(gracePeriod:)`: before the drain, the server keeps accepting and serving (every response ending its
/// connection) for the grace period, so a load balancer probing readiness can stop sending first; then the drain
/// refuses new connections and finishes what is in flight. On both event loops, whatever
/// `FLOW_BFF_SERVER_EVENT_LOOP` says.
@Suite("Shutdown grace period")
struct ShutdownGracePeriodTests {
    /// A router with `/fast` and a `/slow` route whose answers wait for the test.
    final class SlowRoutes: Sendable {
        let promises = Mutex<[HTTPPromise]>([])
        let entered = TestSignal()
        var router: Router {
            var router = Router()
            router.get("/fast") { _ in .text("fast") }
            router.get("/slow") { [self] _ in
                .deferred { promise in
                    self.promises.withLock { $0.append(promise) }
                    self.entered.signal()
                }
            }
            return router
        }

        func answer() {
            for promise in promises.withLock({ $0 }) { promise.succeed(.text("done")) }
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: EventLoopKindTests.kinds)
    func graceKeepsServingUntilItEndsThenTheDrainRefuses(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        let routes = SlowRoutes()
        let server = HTTPServer(configuration: testConfiguration { $0.eventLoop = kind }, responder: routes.router)
        try server.start()
        let drainStarted = TestSignal()
        server.onDrainStart { drainStarted.signal() }
        // The steps inside the grace period run in one job on the clients' own thread: no hop through the
        // concurrency pool, which the suite pinned to one core (or beside a CPU hog) can keep busy for seconds.
        let thread = BlockingThread(name: "grace-clients")
        defer { thread.finish() }
        let idle = HTTPTestClient(port: server.port, thread: thread)
        let before = try await idle.get("/fast")
        #expect(before.header("Connection") != "close")
        let slow = HTTPTestClient(port: server.port)
        try await slow.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        try await routes.entered.wait()

        struct Steps: Sendable {
            var inGrace = false
            var served: HTTPTestClient.Response?
            var freshClosed = false
            var reused: HTTPTestClient.Response?
            var idleClosed = false
            var drainsBefore = -1
        }
        let grace = Duration.seconds(3)
        let clock = ContinuousClock()
        let shutdownAt = clock.now
        let fresh = HTTPTestClient(port: server.port, thread: thread)
        let steps = try await HTTPTestClient.batch([idle, fresh], on: thread) { connections in
            var steps = Steps()
            server.shutdown(gracePeriod: grace, drainTimeout: .seconds(20))
            steps.inGrace = server.isInGracePeriod
            // A new connection is accepted and served, and ended after its answer.
            try connections[1].send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
            steps.served = try connections[1].readResponse()
            steps.freshClosed = try connections[1].isClosedByPeer()
            // The keep-alive connection idle since before the shutdown was left open; its next answer ends it.
            try connections[0].send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
            steps.reused = try connections[0].readResponse()
            steps.idleClosed = try connections[0].isClosedByPeer()
            steps.drainsBefore = drainStarted.count
            return steps
        }
        #expect(steps.inGrace)
        #expect(steps.served?.status == 200)
        #expect(steps.served?.header("Connection") == "close")
        #expect(steps.freshClosed)
        #expect(steps.reused?.text == "fast")
        #expect(steps.reused?.header("Connection") == "close")
        #expect(steps.idleClosed)
        #expect(steps.drainsBefore == 0)

        // The grace period ends by itself, never early; then new connections are refused.
        try await drainStarted.wait(timeout: .seconds(20))
        #expect(clock.now - shutdownAt >= grace)
        #expect(!server.isInGracePeriod)
        #expect(try await Self.refusesConnections(port: server.port))
        #expect(server.isRunning)
        // The request in flight since before the shutdown still gets its answer.
        routes.answer()
        let answer = try #require(try await slow.readResponse())
        #expect(answer.status == 200)
        #expect(answer.text == "done")
        #expect(answer.header("Connection") == "close")
        await server.stoppedAsync()
        #expect(server.statistics.responsesSent == 4)
    }

    @Test(.timeLimit(.minutes(1)), arguments: EventLoopKindTests.kinds)
    func aShutdownWithoutGraceEndsTheGracePeriodAtOnce(_ kind: HTTPServer.Configuration.EventLoopKind) async throws {
        let routes = SlowRoutes()
        let server = HTTPServer(configuration: testConfiguration { $0.eventLoop = kind }, responder: routes.router)
        try server.start()
        let drainStarted = TestSignal()
        server.onDrainStart { drainStarted.signal() }
        let slow = HTTPTestClient(port: server.port)
        try await slow.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        try await routes.entered.wait()

        server.shutdown(gracePeriod: .seconds(600))
        // A longer grace period asked for later does not postpone the drain; a shorter one would advance it.
        server.shutdown(gracePeriod: .seconds(900))
        #expect(server.isInGracePeriod)
        #expect(try await HTTPTestClient(port: server.port).get("/fast").status == 200)
        #expect(drainStarted.count == 0)
        server.shutdown(gracePeriod: .zero, drainTimeout: .seconds(20))
        try await drainStarted.wait(timeout: .seconds(5))
        #expect(!server.isInGracePeriod)
        #expect(try await Self.refusesConnections(port: server.port))
        routes.answer()
        #expect(try await slow.readResponse()?.text == "done")
        await server.stoppedAsync()
    }

    /// What the signal handler does on each signal (``HTTPServer/installSignalHandlers(_:gracePeriod:drainTimeout:onSignal:)``
    /// calls `shutdownOnSignal` and nothing else): the first starts the grace period, the second ends it. Called
    /// directly: a real signal reaches every handler the test process installed, and ShutdownTests sends SIGTERM.
    @Test(.timeLimit(.minutes(1)), arguments: EventLoopKindTests.kinds)
    func aSecondSignalEndsTheGracePeriod(_ kind: HTTPServer.Configuration.EventLoopKind) async throws {
        let routes = SlowRoutes()
        let server = HTTPServer(configuration: testConfiguration { $0.eventLoop = kind }, responder: routes.router)
        try server.start()
        let drainStarted = TestSignal()
        server.onDrainStart { drainStarted.signal() }

        server.shutdownOnSignal(gracePeriod: .seconds(600), drainTimeout: .seconds(20))
        #expect(server.isInGracePeriod)
        let served = try await HTTPTestClient(port: server.port).get("/fast")
        #expect(served.status == 200)
        #expect(served.header("Connection") == "close")
        #expect(drainStarted.count == 0)

        server.shutdownOnSignal(gracePeriod: .seconds(600), drainTimeout: .seconds(20))
        try await drainStarted.wait(timeout: .seconds(5))
        #expect(!server.isInGracePeriod)
        #expect(try await Self.refusesConnections(port: server.port))
        await server.stoppedAsync()
        #expect(!server.isRunning)
    }

    @Test func drainActionsRunOnceAndAtOnceWhenLate() async throws {
        let server = HTTPServer(configuration: testConfiguration()) { _ in .text("ok") }
        try server.start()
        let early = TestSignal()
        server.onDrainStart { early.signal() }
        server.shutdown()
        server.shutdown()
        try await early.wait()
        let late = TestSignal()
        server.onDrainStart { late.signal() }
        try await late.wait()
        await server.stoppedAsync()
        #expect(early.count == 1)
        #expect(late.count == 1)
    }

    /// Whether connecting to `port` is refused within about 2 s. On epoll the listener is shut down when the drain
    /// begins; on the Dispatch loop it is closed moments later, once every loop stopped watching it (a connect in
    /// that moment lands in the kernel's backlog and is reset), so a few tries are allowed.
    static func refusesConnections(port: Int) async throws -> Bool {
        for _ in 0..<100 {
            do {
                let client = try await HTTPTestClient.connect(port: port)
                await client.close()
            } catch let error as SystemError where error.errno == ECONNREFUSED {
                return true
            } catch let error as SystemError where error.errno == ECONNRESET {
                // The listener closed while this connection sat in its backlog: not an answer yet, ask again.
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
