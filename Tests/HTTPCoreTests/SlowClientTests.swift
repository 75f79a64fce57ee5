import HTTPCore
import HTTPTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Slow clients")
struct SlowClientTests {
    /// Raises the soft open-file limit so 500 client + 500 server sockets fit.
    static func raiseFileLimit(to wanted: UInt) {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        setrlimit(resource, &limit)
    }

    static func seconds(since start: UInt64) -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        let now = UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
        return Double(now - start) / 1e9
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Timing bounds derive from the header timeout, with margins that hold on a loaded one-core machine: opening
    /// 500 loopback connections from one thread and serving one request takes well under a second even then.
    @Test(.timeLimit(.minutes(1)))
    func fiveHundredTricklingClientsDoNotStarveANormalOne() async throws {
        Self.raiseFileLimit(to: 4096)
        let headerTimeout = 4.0
        let configuration = testConfiguration { $0.timeouts.headerRead = .seconds(headerTimeout) }
        // ~1 000 sockets: no process may be launched meanwhile (ProcessLaunchGate).
        try await ProcessLaunchGate.shared.holdingManyDescriptors {
            try await self.fiveHundredSlowClients(configuration, headerTimeout)
        }
    }

    func fiveHundredSlowClients(_ configuration: HTTPServer.Configuration, _ headerTimeout: Double) async throws {
        try await withServer(configuration, responder: testRouter) { server in
            // The 500 slow clients and the normal one share one thread; connecting, trickling and the normal
            // request run in one job on it, so a busy concurrency pool cannot stretch the gaps between them.
            let thread = BlockingThread(name: "slow-clients")
            defer { thread.finish() }
            let slow = (0..<500).map { _ in HTTPTestClient(port: server.port, thread: thread) }
            let normal = HTTPTestClient(port: server.port, thread: thread)
            let start = Self.now()
            let (answer, served) = try await HTTPTestClient.batch(slow + [normal], on: thread) { connections in
                let slow = connections.dropLast()
                for connection in slow { try connection.send("GET /hello HTTP/1.1\r\nHost: t\r\n") }
                for connection in slow { try connection.send("X-Slow: 1\r\n") }
                try connections.last!.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                return (try connections.last!.readResponse()?.text, Self.seconds(since: start))
            }
            #expect(answer == "hello")
            // Served while every slow client still holds its connection: before the first header timeout fires.
            #expect(served < headerTimeout, "the normal request was answered only after \(served)s")

            let timedOut = try await HTTPTestClient.batch(slow, on: thread) { connections in
                try connections.count { try $0.readResponse()?.status == 408 && $0.isClosedByPeer() }
            }
            let closedAfter = Self.seconds(since: start)
            #expect(timedOut == 500)
            // Closed by the header timeout: not before it (a lower bound load cannot break), and not never (each
            // read is bounded by the client's receive timeout, so a server that kept them open fails above).
            #expect(closedAfter >= headerTimeout - 0.1, "slow clients closed after \(closedAfter)s")
            #expect(server.statistics.openConnections <= 1)
        }
    }
}
