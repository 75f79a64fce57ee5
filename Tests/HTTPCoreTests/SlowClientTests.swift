import HTTPCore
import Testing

#if canImport(Glibc)
    import Glibc
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

    @Test(.timeLimit(.minutes(1)))
    func fiveHundredTricklingClientsDoNotStarveANormalOne() throws {
        Self.raiseFileLimit(to: 4096)
        let configuration = testConfiguration { $0.timeouts.headerRead = .seconds(2) }
        try withServer(configuration, responder: testRouter) { server in
            let start = Self.now()
            var slow: [TestClient] = []
            for _ in 0..<500 {
                let client = try TestClient(port: server.port)
                try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n")
                slow.append(client)
            }
            let opened = Self.seconds(since: start)
            #expect(opened < 1.5, "opening 500 connections took \(opened)s, longer than the header timeout allows")
            for client in slow { try client.send("X-Slow: 1\r\n") }

            let normalStart = Self.now()
            let normal = try TestClient(port: server.port)
            try normal.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try normal.readResponse()?.text == "hello")
            let normalLatency = Self.seconds(since: normalStart)
            #expect(normalLatency < 0.5, "normal request took \(normalLatency)s")

            var timedOut = 0
            for client in slow {
                if let response = try client.readResponse(), response.status == 408, try client.isClosedByPeer() {
                    timedOut += 1
                }
            }
            let closedAfter = Self.seconds(since: start)
            #expect(timedOut == 500)
            // Closed by the 2 s header timeout: not before it, and not much after it.
            #expect(closedAfter >= 1.9)
            #expect(closedAfter < opened + 3, "slow clients closed after \(closedAfter)s")
            #expect(server.statistics.openConnections <= 1)
        }
    }
}
