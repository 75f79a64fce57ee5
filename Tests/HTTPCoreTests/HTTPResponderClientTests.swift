import HTTPTesting
import Synchronization
import Testing

@testable import HTTPCore

/// The in-memory driver resolves replies the way the server does, without a socket.
@Suite struct HTTPResponderClientTests {
    struct Refusal: Error {}

    static func client() -> HTTPResponderClient {
        var router = Router()
        router.get("/now") { request in
            var response = HTTPResponse.text(
                "host \(request.headers["Host"] ?? "-") from \(request.remoteAddress ?? "-")")
            response.requestID = "r-1"
            response.headerBlock = HTTPHeaderBlock(["Cache-Control": "no-store"])
            return .response(response)
        }
        router.get("/later") { _ in
            .task {
                await Task.yield()
                return .deferred { promise in promise.succeed(.text("resolved", status: 201)) }
            }
        }
        router.get("/prepared") { _ in
            .response(
                .prepared(PreparedBody(Array(repeating: UInt8(ascii: "a"), count: 600), contentType: "text/plain")))
        }
        router.get("/problem") { _ in throw HTTPError(.conflict, code: "busy", detail: "try later") }
        router.get("/unexpected") { _ in throw Refusal() }
        router.get("/dropped") { _ in .deferred { _ in } }
        router.get("/fault") { _ in .fault(.reset) }
        router.post("/echo") { request in .response(.bytes(request.body, contentType: "application/json")) }
        return HTTPResponderClient(router)
    }

    @Test func aResponseCarriesItsFieldsAndTheRequestsDefaults() async throws {
        let response = try await Self.client().get("/now")
        #expect(response.status == 200)
        #expect(response.text == "host 127.0.0.1 from 127.0.0.1:49152")
        #expect(response.header("X-Request-ID") == "r-1")
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        let head = try await Self.client().request("HEAD", "/now")
        #expect(head.status == 200 && head.rawBody.isEmpty)
    }

    @Test func tasksAndDeferralsAreAwaited() async throws {
        let response = try await Self.client().get("/later")
        #expect(response.status == 201)
        #expect(response.text == "resolved")
    }

    @Test func aPreparedBodyIsItsIdentityVariantWithItsFields() async throws {
        let response = try await Self.client().get("/prepared", headers: [("Accept-Encoding", "gzip")])
        #expect(response.rawBody.count == 600)
        #expect(response.header("ETag")?.hasPrefix("\"") == true)
        #expect(response.header("Vary") == "Accept-Encoding")
        #expect(response.header("Content-Length") == nil, "framing is the wire's")
        let revalidated = try await Self.client().get(
            "/prepared", headers: [("If-None-Match", response.header("ETag")!)])
        #expect(revalidated.status == 304 && revalidated.rawBody.isEmpty)
        #expect(revalidated.header("ETag") == response.header("ETag"))
    }

    @Test func errorsBecomeTheServersProblems() async throws {
        let problem = try await Self.client().get("/problem")
        #expect(problem.status == 409)
        #expect(problem.text.contains("\"code\":\"busy\""), "\(problem.text)")
        #expect(try await Self.client().get("/unexpected").status == 500)
        #expect(try await Self.client().get("/dropped").status == 500)
        #expect(try await Self.client().get("/missing").status == 404)
        let echo = try await Self.client().post("/echo", json: #"{"a": 1}"#)
        #expect(echo.text == #"{"a": 1}"#)
    }

    @Test func faultsNeedASocket() async throws {
        await #expect(throws: HTTPResponderClient.Undeliverable.self) { try await Self.client().get("/fault") }
    }

    @Test func onSentHearsWhatWasDelivered() async throws {
        let seen = Mutex<[HTTPAccessLogEntry]>([])
        let client = HTTPResponderClient(
            HTTPHandlerResponder { _ in
                var response = HTTPResponse.text("12345", status: 202)
                response.route = "r"
                response.onSent = { entry in seen.withLock { $0.append(entry) } }
                return .response(response)
            })
        _ = try await client.get("/x?y=1")
        let entries = seen.withLock { $0 }
        #expect(entries.count == 1)
        #expect(entries.first?.status == 202)
        #expect(entries.first?.bodyBytes == 5)
        #expect(entries.first?.target == "/x?y=1")
        #expect(entries.first?.route == "r")
    }
}
