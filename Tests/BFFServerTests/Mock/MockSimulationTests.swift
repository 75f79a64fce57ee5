import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Network simulation observed from real clients: a raw socket and URLSession.
@Suite struct MockSimulationTests {
    @Test func resetIsAConnectionResetForBothClients() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let raw = await rawExchange(port: server.port, closingGET("/v1/pages/home", ["X-Flow-Mock: reset"]))
            #expect(raw.bytes.isEmpty)
            #expect(raw.error == ECONNRESET)
            let viaURLSession = await fetch(server.baseURL + "/v1/pages/home", headers: ["X-Flow-Mock": "fault=reset"])
            #expect(throws: (any Error).self) { try viaURLSession.get() }
        }
    }

    @Test func emptyClosesWithoutAResponse() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let raw = await rawExchange(port: server.port, closingGET("/v1/pages/home", ["X-Flow-Mock: empty"]))
            #expect(raw.bytes.isEmpty)
            #expect(raw.error == nil, "an orderly close, not a reset")
            let viaURLSession = await fetch(server.baseURL + "/v1/pages/home", headers: ["X-Flow-Mock": "empty"])
            #expect(throws: (any Error).self) { try viaURLSession.get() }
        }
    }

    @Test func truncateAnnouncesTheFullLengthAndSendsLess() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let raw = await rawExchange(port: server.port, closingGET("/v1/pages/home", ["X-Flow-Mock: truncate=100B"]))
            let text = raw.text
            let headEnd = try #require(text.range(of: "\r\n\r\n"))
            let head = text[..<headEnd.lowerBound].lowercased()
            let length = try #require(
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }.flatMap {
                    Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces))
                })
            #expect(length > 100)
            #expect(raw.bytes.count - (text.utf8.distance(from: text.startIndex, to: headEnd.upperBound)) == 100)
            let viaURLSession = await fetch(
                server.baseURL + "/v1/pages/home", headers: ["X-Flow-Mock": "truncate=100B"])
            #expect(throws: (any Error).self) { try viaURLSession.get() }
        }
    }

    @Test func dripSpreadsTheResponseOverTime() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let plain = await rawExchange(port: server.port, closingGET("/v1/pages/home"))
            let raw = await rawExchange(
                port: server.port, closingGET("/v1/pages/home", ["X-Flow-Mock: drip=512B/40ms"]))
            let chunks = (raw.bytes.count + 511) / 512
            #expect(chunks >= 4)
            let spread = try #require(raw.lastByte) - (try #require(raw.firstByte))
            #expect(spread >= Double(chunks - 1) * 0.040 * 0.9, "\(chunks) chunks in \(spread) s")
            #expect(raw.reads >= 2)
            let body = { (bytes: [UInt8]) in
                String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n\r\n").dropFirst().joined()
            }
            #expect(body(raw.bytes) == body(plain.bytes), "the whole body arrives, just slowly")
            let started = Date()
            let viaURLSession = try await fetch(
                server.baseURL + "/v1/pages/empty", headers: ["X-Flow-Mock": "drip=64B/30ms"]
            ).get()
            #expect(viaURLSession.1.statusCode == 200)
            #expect(Date().timeIntervalSince(started) >= 0.1)
        }
    }

    @Test func statusFaultsAndRetryAfter() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let (body, tooMany) = try await fetch(
                server.baseURL + "/v1/pages/home", headers: ["X-Flow-Mock": "status=429; retry-after=5"]
            ).get()
            #expect(tooMany.statusCode == 429)
            #expect(tooMany.value(forHTTPHeaderField: "Retry-After") == "5")
            #expect(String(decoding: body, as: UTF8.self).contains("\"code\":\"simulated_fault\""))
            let raw = await rawExchange(port: server.port, closingGET("/v1/pages/home", ["X-Flow-Mock: status=503"]))
            #expect(raw.text.hasPrefix("HTTP/1.1 503 "))
            let bad = try await HTTPTestClient(port: server.port).get(
                "/v1/pages/home", headers: [("X-Flow-Mock", "latency=soon")])
            #expect(bad.status == 400)
            #expect(bad.text.contains("invalid_mock_header"))
        }
    }

    /// With one worker thread, 20 plain requests are answered while a 3 s simulated latency is pending: a blocking
    /// delay would hold them up behind it. The whole exchange runs in one job on a client thread (off the
    /// concurrency pool, so a busy pool cannot distort it): send the slow request, time the 20 fast ones, then read
    /// the slow answer. 20 loopback requests take far less than half the latency even on a loaded one-core machine.
    @Test func latencyIsAppliedWithoutBlockingOtherRequests() async throws {
        var configuration = mockConfiguration()
        configuration.server.workers = 1
        let latency = 3.0
        try await withTestServer(configuration: configuration) { server in
            let thread = BlockingThread(name: "latency")
            defer { thread.finish() }
            let clients = [
                HTTPTestClient(port: server.port, thread: thread), HTTPTestClient(port: server.port, thread: thread),
            ]
            let (slow, fastStatuses, fastTook, slowTook) = try await HTTPTestClient.batch(clients, on: thread) {
                connections in
                let started = ContinuousClock.now
                try connections[0].send(closingGET("/v1/pages/home", ["X-Flow-Mock: latency=\(Int(latency * 1000))ms"]))
                var statuses: [Int] = []
                for _ in 0..<20 {
                    try connections[1].send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                    statuses.append(try connections[1].readResponse()?.status ?? 0)
                }
                let fastTook = ContinuousClock.now - started
                let slow = try connections[0].readResponse()
                return (slow, statuses, fastTook, ContinuousClock.now - started)
            }
            #expect(fastStatuses == Array(repeating: 200, count: 20))
            #expect(fastTook < .seconds(latency / 2), "the fast requests waited for the slow one: \(fastTook)")
            #expect(slow?.status == 200)
            #expect(slow?.header("X-Flow-Mock-Applied") == "latency=\(Int(latency * 1000))ms")
            #expect(slowTook >= .seconds(latency))
        }
    }

    @Test func theSameSeedGivesTheSameLatencySequence() async throws {
        let spec = "latency=uniform(1ms,30ms)"
        func sequence(seed: UInt64) async throws -> [String] {
            try await withTestServer(configuration: mockConfiguration { $0.seed = seed }) { server in
                let http = HTTPTestClient(port: server.port)
                var applied: [String] = []
                for _ in 0..<12 {
                    let response = try await http.get("/v1/pages/home", headers: [("X-Flow-Mock", spec)])
                    applied.append(response.header("X-Flow-Mock-Applied") ?? "")
                }
                return applied
            }
        }
        let first = try await sequence(seed: 9)
        let second = try await sequence(seed: 9)
        let other = try await sequence(seed: 10)
        #expect(first == second)
        #expect(first != other)
        let expected = try (0..<12).map {
            "latency=\(FaultPlan(seed: 9).decide(counter: UInt64($0), spec: try FaultSpec.parse(spec)).latencyMs)ms"
        }
        #expect(first == expected)
    }

    /// Parallel UI tests, each with its session, do not change each other's outcomes: a seeded rate rule draws from
    /// the session's own sequence, so session ui-a sees the same faults whether or not ui-b's requests come in
    /// between, and `POST /__admin/reset?session=` restarts only that sequence.
    @Test func eachSessionDrawsFromItsOwnSequence() async throws {
        let spec = try FaultSpec.parse("status=503; rate=0.5")
        func statuses(_ session: String, _ http: HTTPResponderClient, count: Int = 16) async throws -> [Int] {
            var statuses: [Int] = []
            for _ in 0..<count {
                let response = try await http.get(
                    "/v1/pages/home", headers: [("X-Flow-Session", session), ("X-Flow-Mock", spec.description)])
                statuses.append(response.status)
            }
            return statuses
        }
        let configuration = mockConfiguration { $0.seed = 5 }
        let alone = try await withTestApplication(configuration: configuration) { http in
            try await statuses("ui-a", http)
        }
        let interleaved = try await withTestApplication(configuration: configuration) { http in
            var statusesOfA: [Int] = []
            for _ in 0..<16 {
                _ = try await statuses("ui-b", http, count: 1)
                statusesOfA += try await statuses("ui-a", http, count: 1)
            }
            return statusesOfA
        }
        #expect(alone == interleaved)
        #expect(Set(alone) == [200, 503], "the rate draws both outcomes: \(alone)")
        let expected = (0..<16).map {
            FaultPlan(seed: 5).decide(counter: UInt64($0), stream: FaultPlan.stream(of: "ui-a"), spec: spec).fault
                == nil ? 200 : 503
        }
        #expect(alone == expected)
        try await withTestApplication(configuration: configuration) { http in
            let first = try await statuses("ui-a", http, count: 4)
            let reset = try await http.request("POST", "/__admin/reset?session=ui-a", headers: [("X-Flow-Admin", "1")])
            #expect(reset.status == 200)
            #expect(try await statuses("ui-a", http, count: 4) == first)
        }
    }

    @Test func routeRulesFromConfigurationAndTheAdminAPI() async throws {
        let configured = try FaultRule(pattern: "GET /v1/pages/feed", spec: FaultSpec.parse("status=503"))
        try await withTestServer(configuration: mockConfiguration { $0.faults = [configured] }) { server in
            let http = HTTPTestClient(port: server.port)
            #expect(try await http.get("/v1/pages/feed").status == 503)
            #expect(try await http.get("/v1/pages/home").status == 200)
            #expect(try await http.get("/v1/pages/feed", headers: [("X-Flow-Mock", "none")]).status == 200)
            let put = try await http.request(
                "PUT", "/__admin/faults", headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(#"{"/v1/pages/h*": "status=500", "/v1/pages/feed": "latency=1ms"}"#.utf8))
            #expect(put.status == 200)
            #expect(try json(put)["runtime"]?["/v1/pages/h*"] == "status=500")
            #expect(try await http.get("/v1/pages/home").status == 500)
            #expect(try await http.get("/v1/pages/feed").status == 200, "runtime rules come before configured ones")
            let invalid = try await http.request(
                "PUT", "/__admin/faults", headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(#"{"/v1/pages/*": "status=200"}"#.utf8))
            #expect(invalid.status == 400)
            #expect(try await http.request("DELETE", "/__admin/faults", headers: [("X-Flow-Admin", "1")]).status == 200)
            #expect(try await http.get("/v1/pages/home").status == 200)
            #expect(try await http.get("/v1/pages/feed").status == 503)
        }
    }

    @Test func productionHasNoMockBehaviour() async throws {
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        try await withTestApplication(configuration: configuration) { http in
            let page = try await http.get(
                "/v1/pages/home", headers: [("X-Flow-Mock", "status=503"), ("X-Flow-Scenario", "empty")])
            #expect(page.status == 200)
            #expect(page.header("X-Flow-Mock-Applied") == nil)
            #expect(try await http.get("/__admin/status").status == 404)
            #expect(try await http.request("POST", "/__admin/echo").status == 404)
        }
    }
}
