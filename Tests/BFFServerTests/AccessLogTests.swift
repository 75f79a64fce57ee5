import BFFServer
import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Testing

/// The access log and metrics are fed from what HTTPCore wrote, not from what a handler returned.
@Suite struct AccessLogTests {
    /// The access-log line of the request sent with `X-Request-ID: requestID`.
    static func line(_ log: MemoryLogSink, _ requestID: String) throws -> JSONValue {
        let text = try #require(
            log.lines.first { $0.contains("\"requestID\":\"\(requestID)\"") && $0.contains("\"route\"") })
        return try PageDecoder().parse(Array(text.utf8))
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
