import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Testing

@testable import BFFServer

/// `http.corsOrigins`: loopback origins by default in mock mode, none in production; preflights answered, allowed
/// origins named on every answer, others left without CORS fields.
@Suite struct CORSTests {
    @Test(arguments: [
        ("http://localhost:*", "http://localhost:5173", true),
        ("http://localhost:*", "http://localhost", true),
        ("http://localhost:*", "http://LOCALHOST:3000", true),
        ("http://localhost:*", "http://localhost.evil.example", false),
        ("http://localhost:*", "http://localhost:80x", false),
        ("http://localhost:*", "https://localhost:5173", false),
        ("http://[::1]:*", "http://[::1]:8081", true),
        ("https://app.example.com", "https://app.example.com", true),
        ("https://app.example.com", "https://app.example.com:444", false),
        ("*", "https://anything.example", true),
    ])
    func originPatterns(pattern: String, origin: String, allowed: Bool) {
        #expect(CORSPolicy.matches(origin, pattern: pattern) == allowed)
    }

    @Test func defaultsFollowMockMode() {
        var configuration = BFFConfiguration()
        #expect(CORSPolicy(configuration: configuration).isEmpty)
        configuration.mock.enabled = true
        #expect(CORSPolicy(configuration: configuration).origins == CORSPolicy.loopback)
        configuration.http.corsOrigins = []
        #expect(CORSPolicy(configuration: configuration).isEmpty)
    }

    @Test func mockModeAllowsLoopbackOriginsAndAnswersPreflights() async throws {
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        configuration.mock.enabled = true
        configuration.mock.watch = .off
        try await withTestApplication(configuration: configuration) { http in
            let preflight = try await http.request(
                "OPTIONS", "/v1/actions/cart.setQuantity",
                headers: [
                    ("Origin", "http://localhost:5173"), ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "content-type, x-flow-session, idempotency-key"),
                ])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "http://localhost:5173")
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true)
            let allowedHeaders = try #require(preflight.header("Access-Control-Allow-Headers"))
            for name in [
                "X-Flow-Client", "X-Flow-Session", "X-Flow-Scenario", "X-Flow-Admin", "Idempotency-Key",
                "If-None-Match",
            ] {
                #expect(allowedHeaders.contains(name), "\(name)")
            }
            #expect(preflight.header("Access-Control-Max-Age") != nil)

            let page = try await http.get("/v1/pages/home", headers: [("Origin", "http://127.0.0.1:8081")])
            #expect(page.status == 200)
            #expect(page.header("Access-Control-Allow-Origin") == "http://127.0.0.1:8081")
            #expect(page.headers.values(for: "Vary").contains { $0.contains("Origin") })
            let missing = try await http.get("/v1/pages/hme", headers: [("Origin", "http://localhost:5173")])
            #expect(missing.status == 404)
            #expect(missing.header("Access-Control-Allow-Origin") == "http://localhost:5173")

            let other = try await http.get("/v1/pages/home", headers: [("Origin", "https://evil.example")])
            #expect(other.status == 200)
            #expect(other.header("Access-Control-Allow-Origin") == nil)
            let otherPreflight = try await http.request(
                "OPTIONS", "/v1/pages/home",
                headers: [("Origin", "https://evil.example"), ("Access-Control-Request-Method", "GET")])
            #expect(otherPreflight.header("Access-Control-Allow-Origin") == nil)
            #expect(otherPreflight.status == 405)
        }
    }

    @Test func productionAllowsOnlyConfiguredOrigins() async throws {
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        try await withTestServer(configuration: configuration) { server in
            let page = try await HTTPTestClient(port: server.port).get(
                "/v1/pages/home", headers: [("Origin", "http://localhost:5173")])
            #expect(page.header("Access-Control-Allow-Origin") == nil)
        }
        configuration.http.corsOrigins = ["https://app.example.com"]
        try await withTestApplication(configuration: configuration) { http in
            let page = try await http.get("/v1/pages/home", headers: [("Origin", "https://app.example.com")])
            #expect(page.header("Access-Control-Allow-Origin") == "https://app.example.com")
            #expect(page.header("Access-Control-Expose-Headers")?.contains("ETag") == true)
            let loopback = try await http.get("/v1/pages/home", headers: [("Origin", "http://localhost:5173")])
            #expect(loopback.header("Access-Control-Allow-Origin") == nil)
        }
    }
}
