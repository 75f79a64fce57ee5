import Dispatch
import HTTPCore
import HTTPTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

final class CapturingLogSink: HTTPLogSink {
    let errors = Mutex<[String]>([])
    func error(_ message: String) { errors.withLock { $0.append(message) } }
}

struct PlainError: Error {}

/// The application used by the live tests.
let testRouter: Router = {
    var router = Router()
    router.get("/hello") { _ in .text("hello") }
    router.post("/echo") { request in
        var headers = HTTPFields()
        if let trailer = request.trailers["x-t"] { headers.append("X-Trailer", trailer) }
        return .response(.bytes(request.body, headers: headers))
    }
    router.get("/json") { request in
        let size = Int(request.queryItem("size") ?? "") ?? 100
        let unit = Array("{\"k\":\"v\"},".utf8)
        return .json(Array((0..<size).map { unit[$0 % unit.count] }))
    }
    router.get("/prepared") { _ in .response(.prepared(preparedJSON)) }
    router.get("/pages/{id}") { request in .text("page \(request.pathParameters["id"] ?? "")") }
    router.get("/deferred") { request in
        let delay = Int(request.queryItem("ms") ?? "") ?? 10
        return .deferred { promise in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
                promise.succeed(.text("deferred \(delay)"))
            }
        }
    }
    router.get("/dropped") { _ in .deferred { _ in } }
    router.get("/stream") { _ in
        .response(
            HTTPResponse(
                headers: ["Content-Type": "text/plain"],
                body: .stream { writer in
                    DispatchQueue.global().async {
                        writer.write(Array("a".utf8))
                        writer.write(Array("bc".utf8))
                        writer.finish()
                    }
                }))
    }
    router.get("/fault/reset") { _ in .fault(.reset) }
    router.get("/fault/close") { _ in .fault(.closeWithoutResponse) }
    router.get("/fault/truncate") { _ in .fault(.truncate(.text(String(repeating: "x", count: 1000)), afterBytes: 10)) }
    router.get("/fault/drip") { _ in
        .fault(.drip(.text(String(repeating: "d", count: 100)), chunkSize: 40, interval: .milliseconds(5)))
    }
    router.get("/request-id/{id}") { request in
        var response = HTTPResponse.text("id")
        response.requestID = request.pathParameters["id"]
        return .response(response)
    }
    router.get("/boom") { _ in throw PlainError() }
    router.get("/problem") { _ in throw HTTPError(.conflict, code: "busy", detail: "try later") }
    return router
}()

let preparedJSON = PreparedBody(
    Array(String(repeating: "{\"id\":1,\"name\":\"x\"},", count: 200).utf8), contentType: "application/json")

@Suite("HTTPServer live (loopback)")
struct ServerTests {
    @Test func keepAliveAndPipelining() async throws {
        try await withServer(responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send(
                "GET /hello HTTP/1.1\r\nHost: t\r\n\r\nGET /json?size=9 HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "GET /pages/a%2Fb HTTP/1.1\r\nHost: t\r\n\r\n")
            let first = try #require(try await client.readResponse())
            let second = try #require(try await client.readResponse())
            let third = try #require(try await client.readResponse())
            #expect(first.text == "hello")
            #expect(first.headers["Connection"] == nil)
            #expect(first.headers["Date"]?.hasSuffix(" GMT") == true)
            #expect(second.text == "{\"k\":\"v\"}")
            #expect(third.text == "page a/b")
            try await client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse()?.text == "hello")
        }
    }

    @Test func http10ConnectionHandling() async throws {
        try await withServer(responder: testRouter) { server in
            let plain = HTTPTestClient(port: server.port)
            try await plain.send("GET /hello HTTP/1.0\r\n\r\n")
            let response = try #require(try await plain.readResponse())
            #expect(response.text == "hello")
            #expect(try await plain.isClosedByPeer())

            let keepAlive = HTTPTestClient(port: server.port)
            try await keepAlive.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await keepAlive.readResponse()?.headers["Connection"] == "keep-alive")
            try await keepAlive.send("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(try await keepAlive.readResponse()?.headers["Connection"] == "close")
            #expect(try await keepAlive.isClosedByPeer())
        }
    }

    @Test func chunkedRequestBodyAndHead() async throws {
        try await withServer(responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nabcd\r\n3\r\nefg\r\n"
                    + "0\r\nX-T: done\r\n\r\n")
            let response = try #require(try await client.readResponse())
            #expect(response.text == "abcdefg")
            #expect(response.headers["X-Trailer"] == "done")
            try await client.send("HEAD /json?size=50 HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try #require(try await client.readResponse(method: "HEAD"))
            #expect(head.headers["Content-Length"] == "50")
            try await client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse()?.text == "hello")
        }
    }

    @Test func expectContinue() async throws {
        try await withServer(responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            #expect(try await client.readResponse()?.status == 100)
            try await client.send("hello")
            #expect(try await client.readResponse()?.text == "hello")
            // Too large: refused with 413 before any body is sent.
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 99999999\r\n\r\n")
            let refused = try #require(try await client.readResponse())
            #expect(refused.status == 413)
            #expect(refused.headers["Connection"] == "close")
        }
    }

    @Test func gzipNegotiation() async throws {
        try await withServer(responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            let expected = Array((0..<5000).map { Array("{\"k\":\"v\"},".utf8)[$0 % 10] })
            try await client.send("GET /json?size=5000 HTTP/1.1\r\nHost: t\r\nAccept-Encoding: br, gzip;q=0.8\r\n\r\n")
            let gzipped = try #require(try await client.readResponse())
            #expect(gzipped.headers["Content-Encoding"] == "gzip")
            #expect(gzipped.headers["Vary"] == "Accept-Encoding")
            #expect(gzipped.rawBody.count < 1000)
            #expect(Gzip.decompress(gzipped.rawBody) == expected)

            for value in ["gzip;q=0", "identity", "*;q=0, identity"] {
                try await client.send("GET /json?size=5000 HTTP/1.1\r\nHost: t\r\nAccept-Encoding: \(value)\r\n\r\n")
                let plain = try #require(try await client.readResponse())
                #expect(plain.headers["Content-Encoding"] == nil, "\(value)")
                #expect(plain.body == expected)
            }
            try await client.send("GET /json?size=5000 HTTP/1.1\r\nHost: t\r\n\r\n")
            let none = try #require(try await client.readResponse())
            #expect(none.headers["Content-Encoding"] == nil)
            #expect(none.headers["Vary"] == "Accept-Encoding")
            // Small bodies are not compressed.
            try await client.send("GET /json?size=100 HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
            #expect(try await client.readResponse()?.headers["Content-Encoding"] == nil)
        }
    }

    @Test func preparedBodyGzipETagAnd304() async throws {
        try await withServer(responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send("GET /prepared HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
            let gzipped = try #require(try await client.readResponse())
            #expect(gzipped.headers["Content-Encoding"] == "gzip")
            #expect(gzipped.rawBody == preparedJSON.gzipBytes)
            let etag = try #require(gzipped.headers["ETag"])
            try await client.send("GET /prepared HTTP/1.1\r\nHost: t\r\n\r\n")
            let plain = try #require(try await client.readResponse())
            #expect(plain.body == preparedJSON.identityBytes)
            #expect(plain.headers["ETag"] == preparedJSON.etag)
            try await client.send(
                "GET /prepared HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\nIf-None-Match: \(etag)\r\n\r\n")
            let notModified = try #require(try await client.readResponse())
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.headers["ETag"] == etag)
            #expect(notModified.headers["Content-Length"] == nil)
            try await client.send("GET /prepared HTTP/1.1\r\nHost: t\r\nIf-None-Match: \"nope\"\r\n\r\n")
            #expect(try await client.readResponse()?.status == 200)
        }
    }

    @Test(arguments: [
        ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: t\r\n\r\n", 414, "request_line_too_long"),
        (
            "GET / HTTP/1.1\r\nHost: t\r\nX: \(String(repeating: "a", count: 9000))\r\n\r\n", 431,
            "header_field_too_large"
        ),
        ("GET / HTTP/1.1\r\nHost: t\r\n" + String(repeating: "X: y\r\n", count: 101) + "\r\n", 431, "too_many_headers"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n", 413, "body_too_large"),
        (
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Encoding: gzip\r\nContent-Length: 1\r\n\r\nx", 415,
            "content_encoding_not_supported"
        ),
        ("GET / HTTP/1.1\r\nHost : t\r\n\r\n", 400, "whitespace_before_colon"),
        ("GET / HTTP/2.0\r\nHost: t\r\n\r\n", 505, "unsupported_version"),
        ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, "unsupported_transfer_coding"),
    ])
    func refusedRequestsCloseWithProblem(_ raw: String, _ status: Int, _ code: String) async throws {
        try await withServer(responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send(raw)
            let response = try #require(try await client.readResponse())
            #expect(response.status == status)
            #expect(response.headers["Connection"] == "close")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.text.contains("\"code\":\"\(code)\""))
            #expect(try await client.isClosedByPeer())
        }
    }

    @Test func handlerErrors() async throws {
        let logger = CapturingLogSink()
        try await withServer(logger: logger, responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send("GET /boom HTTP/1.1\r\nHost: t\r\n\r\n")
            let boom = try #require(try await client.readResponse())
            #expect(boom.status == 500)
            #expect(
                boom.text
                    == "{\"type\":\"about:blank\",\"title\":\"Internal Server Error\",\"status\":500,\"code\":\"internal_error\"}"
            )
            #expect(logger.errors.withLock { $0.contains { $0.contains("PlainError") } })
            try await client.send("GET /problem HTTP/1.1\r\nHost: t\r\n\r\n")
            let problem = try #require(try await client.readResponse())
            #expect(problem.status == 409)
            #expect(problem.text.contains("\"detail\":\"try later\""))
            try await client.send("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse()?.status == 404)
            try await client.send("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let notAllowed = try #require(try await client.readResponse())
            #expect(notAllowed.status == 405)
            #expect(notAllowed.headers["Allow"] == "GET, HEAD")
            try await client.send("GET /dropped HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse()?.status == 500)
        }
    }

    /// `HTTPResponse.requestID` is written as `X-Request-ID`; one that is not 1–128 visible ASCII characters is
    /// dropped and reported, and the response is still sent.
    @Test func requestIDIsWrittenIntoTheHead() async throws {
        let logger = CapturingLogSink()
        try await withServer(logger: logger, responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send("GET /request-id/abc-123 HTTP/1.1\r\nHost: t\r\n\r\n")
            let good = try #require(try await client.readResponse())
            #expect(good.status == 200)
            #expect(good.headers["X-Request-ID"] == "abc-123")
            #expect(good.text == "id")
            try await client.send("GET /request-id/a%20b HTTP/1.1\r\nHost: t\r\n\r\n")
            let spaced = try #require(try await client.readResponse())
            #expect(spaced.status == 200)
            #expect(spaced.headers["X-Request-ID"] == nil)
            #expect(logger.errors.withLock { $0.contains { $0.contains("X-Request-ID") } })
            let long = String(repeating: "x", count: 129)
            try await client.send("GET /request-id/\(long) HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try #require(try await client.readResponse()).headers["X-Request-ID"] == nil)
        }
    }

    @Test func timeouts() async throws {
        let configuration = testConfiguration {
            $0.timeouts.headerRead = .milliseconds(300)
            $0.timeouts.idle = .milliseconds(300)
            $0.timeouts.bodyRead = .milliseconds(300)
        }
        try await withServer(configuration, responder: testRouter) { server in
            let slowHead = HTTPTestClient(port: server.port)
            try await slowHead.send("GET /hello HTTP/1.1\r\nHost:")
            let timedOut = try #require(try await slowHead.readResponse())
            #expect(timedOut.status == 408)
            #expect(timedOut.text.contains("header_timeout"))
            #expect(try await slowHead.isClosedByPeer())

            let slowBody = HTTPTestClient(port: server.port)
            try await slowBody.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
            #expect(try await slowBody.readResponse()?.status == 408)

            let idle = HTTPTestClient(port: server.port)
            try await idle.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await idle.readResponse()?.text == "hello")
            #expect(try await idle.isClosedByPeer())

            let silent = try await HTTPTestClient.connect(port: server.port)
            #expect(try await silent.readToEOF().isEmpty)
        }
    }

    @Test func deferredRepliesKeepPipelineOrder() async throws {
        try await withServer(responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send(
                "GET /deferred?ms=50 HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "GET /deferred?ms=1 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse()?.text == "deferred 50")
            #expect(try await client.readResponse()?.text == "hello")
            #expect(try await client.readResponse()?.text == "deferred 1")
        }
    }

    @Test func streamedBody() async throws {
        try await withServer(responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let streamed = try #require(try await client.readResponse())
            #expect(streamed.headers["Transfer-Encoding"] == "chunked")
            #expect(streamed.text == "abc")
            #expect(try await client.readResponse()?.text == "hello")
            let old = HTTPTestClient(port: server.port)
            try await old.send("GET /stream HTTP/1.0\r\n\r\n")
            let closeDelimited = try #require(try await old.readResponse())
            #expect(closeDelimited.text == "abc")
        }
    }

    @Test func faults() async throws {
        try await withServer(responder: testRouter) { server in
            let reset = HTTPTestClient(port: server.port)
            try await reset.send("GET /fault/reset HTTP/1.1\r\nHost: t\r\n\r\n")
            await #expect(throws: SystemError(function: "recv", errno: ECONNRESET)) { try await reset.readResponse() }

            let closed = HTTPTestClient(port: server.port)
            try await closed.send("GET /fault/close HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await closed.readResponse() == nil)

            let truncated = HTTPTestClient(port: server.port)
            try await truncated.send("GET /fault/truncate HTTP/1.1\r\nHost: t\r\n\r\n")
            let raw = String(decoding: try await truncated.readToEOF(), as: UTF8.self)
            #expect(raw.contains("Content-Length: 1000\r\n"))
            #expect(raw.hasSuffix("\r\n\r\nxxxxxxxxxx"))

            let drip = HTTPTestClient(port: server.port)
            try await drip.send("GET /fault/drip HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await drip.readResponse()?.text == String(repeating: "d", count: 100))
            #expect(try await drip.readResponse()?.text == "hello")
        }
    }

    @Test func connectionLimits() async throws {
        let configuration = testConfiguration {
            $0.limits.maxConnections = 2
            $0.limits.maxRequestsPerConnection = 2
            $0.limits.reservedConnections = 0  // refused at accept (ConnectionLifetimeTests covers the reserve)
        }
        try await withServer(configuration, responder: testRouter) { server in
            let first = HTTPTestClient(port: server.port)
            let second = HTTPTestClient(port: server.port)
            try await first.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await first.readResponse()?.headers["Connection"] == nil)
            try await second.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await second.readResponse()?.status == 200)
            if TestTLS.isOn {
                // Over TLS the refused connection is closed at accept: its handshake fails (no cleartext 503).
                await #expect(throws: SystemError.self) { try await HTTPTestClient.connect(port: server.port) }
            } else {
                let third = try await HTTPTestClient.connect(port: server.port)
                let refused = try #require(try await third.readResponse())
                #expect(refused.status == 503)
                #expect(refused.text.contains("too_many_connections"))
            }
            try await first.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await first.readResponse()?.headers["Connection"] == "close")
            #expect(try await first.isClosedByPeer())
        }
    }

    @Test func ipv6Loopback() async throws {
        var configuration = testConfiguration { $0.host = "::1" }
        configuration.workerThreads = 1
        try await withServer(configuration, responder: testRouter) { server in
            #expect(server.localAddress == "[::1]:\(server.port)")
            let client = HTTPTestClient(host: "::1", port: server.port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: [::1]\r\n\r\n")
            #expect(try await client.readResponse()?.text == "hello")
        }
    }

    @Test func portInUseIsReported() async throws {
        try await withServer(responder: testRouter) { server in
            let second = HTTPServer(configuration: .init(host: "127.0.0.1", port: server.port), responder: testRouter)
            #expect(throws: SystemError(function: "bind", errno: EADDRINUSE)) { try second.start() }
        }
    }
}
