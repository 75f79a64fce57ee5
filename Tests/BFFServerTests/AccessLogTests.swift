import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Testing

@testable import BFFServer

/// The access log and metrics are fed from what HTTPCore wrote, not from what a handler returned.
@Suite struct AccessLogTests {
    /// The access-log line of the request sent with `X-Request-ID: requestID`.
    static func line(_ log: MemoryLogSink, _ requestID: String) throws -> JSONValue {
        let text = try #require(
            log.lines.first { $0.contains("\"requestID\":\"\(requestID)\"") && $0.contains("\"route\"") })
        return try PageDecoder().parse(Array(text.utf8))
    }

    /// The line says who asked and what for: the page served, the problem code, the peer, the client a trusted
    /// proxy forwarded (never one an untrusted peer claims), the user agent and the app's platform and version.
    @Test func theLineNamesTheClientTheAppThePageAndTheProblem() async throws {
        for trusted in [true, false] {
            let log = MemoryLogSink()
            var configuration = BFFConfiguration()
            configuration.logging.trustedProxies = trusted ? ["127.0.0.1"] : []
            try await withTestServer(configuration: configuration, log: log) { server in
                let http = HTTPTestClient(port: server.port)
                _ = try await http.get(
                    "/v1/pages/home",
                    headers: [
                        ("X-Request-ID", "app"), ("User-Agent", "Larder/3.2.0 (iPhone; iOS 18.1)"),
                        ("X-Flow-Client", "platform=ios; version=3.2.0; widgets=text@1,button@2"),
                        ("X-Forwarded-For", "203.0.113.7, 127.0.0.1"),
                    ])
                _ = try await http.get("/v1/pages/no-such-page", headers: [("X-Request-ID", "missing")])
                let app = try Self.line(log, "app")
                #expect(app["page"] == "home")
                #expect(app["problem"] == nil)
                #expect(app["peer"]?.stringValue?.hasPrefix("127.0.0.1:") == true)
                #expect(app["client"] == (trusted ? "203.0.113.7" : nil))
                #expect(app["userAgent"] == "Larder/3.2.0 (iPhone; iOS 18.1)")
                #expect(app["appPlatform"] == "ios")
                #expect(app["appVersion"] == "3.2.0")
                let missing = try Self.line(log, "missing")
                #expect(missing["problem"] == "page_not_found")
                #expect(missing["page"] == nil, "an unknown page id is not logged as a page")
                #expect(missing["appPlatform"] == nil)
            }
        }
        #expect(Authority("[::1]:8080")?.host == "::1")
        #expect(Authority("10.0.0.2:443")?.host == "10.0.0.2")
        #expect(
            AccessLogExtras.client(
                forwardedFor: "198.51.100.1, 10.0.0.9, 10.0.0.2", trustedProxies: ["10.0.0.2", "10.0.0.9"])
                == "198.51.100.1")
    }

    /// With tracing on, the line names the trace and the server span that answered (the caller's span is its parent).
    @Test func aTracedRequestsLineNamesItsTraceAndSpan() async throws {
        let log = MemoryLogSink()
        var configuration = BFFConfiguration()
        configuration.tracing.enabled = true
        configuration.tracing.endpoint = "http://127.0.0.1:9/v1/traces"  // nothing listens: exports fail, quietly
        configuration.tracing.scheduleDelaySeconds = 60
        try await withTestServer(configuration: configuration, log: log) { server in
            let http = HTTPTestClient(port: server.port)
            let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            _ = try await http.get(
                "/v1/pages/home", headers: [("X-Request-ID", "traced"), ("traceparent", traceparent)])
            let line = try Self.line(log, "traced")
            #expect(line["traceID"] == "4bf92f3577b34da6a3ce929d0e0e4736")
            let span = try #require(line["spanID"]?.stringValue)
            #expect(span.count == 16 && span != "00f067aa0ba902b7", "the server's own span, not the caller's")
        }
    }

    @Test func statusAndBytesAreWhatWentOnTheWire() async throws {
        let log = MemoryLogSink()
        try await withTestServer(log: log) { server in
            let http = HTTPTestClient(port: server.port)
            let first = try await http.get("/v1/pages/feed", headers: [("X-Request-ID", "plain")])
            let etag = try #require(first.header("ETag"))
            let postback = try #require(
                try PageDecoder().decodePage(first.body).value.pagination?.postback)
            let chunk = try await http.get(
                "/v1/pages/feed/next?postback=\(ContractRoute.percentEncodedSegment(postback))",
                headers: [("X-Request-ID", "chunk")])
            let chunkTag = try #require(chunk.header("ETag"))
            // (request id, method, target, headers, body, status expected on the wire, gzip expected)
            let cases: [(String, String, String, [(String, String)], [UInt8]?, Int, Bool)] = [
                ("ok", "GET", "/v1/pages/feed", [], nil, 200, false),
                ("not-modified", "GET", "/v1/pages/feed", [("If-None-Match", etag)], nil, 304, false),
                ("head", "HEAD", "/v1/pages/feed", [], nil, 200, false),
                ("gzip", "GET", "/v1/pages/feed", [("Accept-Encoding", "gzip")], nil, 200, true),
                // Conditional requests are for GET and HEAD: a POST gets the 200 (the old log said 304).
                (
                    "post-next", "POST", "/v1/pages/feed/next",
                    [("Content-Type", "application/json"), ("If-None-Match", chunkTag)],
                    Array(#"{"postback": "\#(postback)"}"#.utf8), 200, false
                ),
                ("missing", "GET", "/v1/nope", [], nil, 404, false),
            ]
            for (requestID, method, target, headers, body, status, gzip) in cases {
                let response = try await http.request(
                    method, target, headers: headers + [("X-Request-ID", requestID)], body: body)
                #expect(response.status == status, "\(requestID)")
                #expect(response.header("X-Flow-Route") == nil, "\(requestID): no internal header leaves the server")
                #expect((response.header("Content-Encoding") == "gzip") == gzip, "\(requestID)")
                let line = try Self.line(log, requestID)
                #expect(line["status"] == .number(Double(response.status)), "\(requestID)")
                #expect(line["bytes"] == .number(Double(response.rawBody.count)), "\(requestID)")
                #expect((line["gzip"] == .bool(true)) == gzip, "\(requestID)")
                #expect(line["method"] == .string(method), "\(requestID)")
            }
            #expect(try Self.line(log, "not-modified")["route"] == "page")
            #expect(try Self.line(log, "post-next")["route"] == "nextPage")
            #expect(try Self.line(log, "missing")["route"] == "unmatched")
            let metrics = try await http.get("/metrics").text
            #expect(metrics.contains(#"flow_bff_requests_total{route="page",status="304"} 1"#))
            #expect(metrics.contains(#"flow_bff_requests_total{route="nextPage",status="200"} 2"#))
        }
    }

    @Test func noInternalHeaderOnAnyRoute() async throws {
        try await withTestServer { server in
            let http = HTTPTestClient(port: server.port)
            for target in ["/healthz", "/readyz", "/metrics", "/openapi.json", "/v1/pages/home", "/nope"] {
                let response = try await http.get(target)
                #expect(!response.headers.contains { $0.name.lowercased().hasPrefix("x-flow-route") }, "\(target)")
                #expect(response.header("X-Request-ID") != nil, "\(target)")
            }
        }
    }
}
