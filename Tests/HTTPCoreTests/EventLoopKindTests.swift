import Dispatch
import HTTPCore
import HTTPTesting
import Synchronization
import Testing

/// The same behaviour from both event loops, whatever `FLOW_BFF_SERVER_EVENT_LOOP` says (scripts/test also runs
/// every live suite on the Dispatch loop): pipelined, deferred and streamed answers in order, a large prepared body
/// (`sendfile` from a memfd) to many connections at once, gzip, idle timeouts and a graceful drain.
@Suite("Event loops")
struct EventLoopKindTests {
    static let large = PreparedBody(
        Array(String(repeating: "{\"id\":1,\"name\":\"large body\"},", count: 9_000).utf8),
        contentType: "application/json")

    static let router: Router = {
        var router = testRouter
        router.get("/large") { _ in .response(.prepared(EventLoopKindTests.large)) }
        return router
    }()

    static var kinds: [HTTPServer.Configuration.EventLoopKind] {
        #if os(Linux)
            [.epoll, .dispatch]
        #else
            [.dispatch]
        #endif
    }

    @Test(arguments: kinds)
    func servesPipelinedDeferredAndStreamedAnswersInOrder(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        try await withServer(testConfiguration { $0.eventLoop = kind }, responder: Self.router) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send(
                "GET /deferred?ms=30 HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "GET /stream HTTP/1.1\r\nHost: t\r\n\r\nGET /prepared HTTP/1.1\r\nHost: t\r\n"
                    + "Accept-Encoding: gzip\r\n\r\n")
            #expect(try await client.readResponse()?.text == "deferred 30")
            #expect(try await client.readResponse()?.text == "hello")
            #expect(try await client.readResponse()?.text == "abc")
            let gzipped = try #require(try await client.readResponse())
            #expect(gzipped.headers["Content-Encoding"] == "gzip")
            #expect(gzipped.body == preparedJSON.identityBytes)
        }
    }

    @Test(arguments: kinds)
    func sendsALargePreparedBodyToManyConnectionsAtOnce(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        try await withServer(testConfiguration { $0.eventLoop = kind }, responder: Self.router) { server in
            let lengths = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        let client = HTTPTestClient(port: server.port)
                        var total = 0
                        for _ in 0..<3 {
                            let response = try await client.get("/large")
                            #expect(response.body == Self.large.identityBytes)
                            total += response.body.count
                        }
                        return total
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(lengths == Array(repeating: 3 * Self.large.identityBytes.count, count: 16))
            #expect(server.statistics.responsesSent == 48)
        }
    }

    @Test(arguments: kinds)
    func closesIdleConnectionsAndDrainsOnShutdown(_ kind: HTTPServer.Configuration.EventLoopKind) async throws {
        let configuration = testConfiguration {
            $0.eventLoop = kind
            $0.timeouts.idle = .milliseconds(200)
        }
        let held = Mutex<[HTTPPromise]>([])
        let entered = TestSignal()
        var router = Self.router
        router.get("/held") { _ in
            .deferred { promise in
                held.withLock { $0.append(promise) }
                entered.signal()
            }
        }
        let server = HTTPServer(configuration: configuration, responder: router)
        try server.start()
        let idle = HTTPTestClient(port: server.port)
        #expect(try await idle.get("/hello").text == "hello")
        #expect(try await idle.isClosedByPeer())
        // A request in flight when the drain starts is answered, with `Connection: close`.
        let busy = HTTPTestClient(port: server.port)
        try await busy.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
        try await entered.wait(for: 1)
        server.shutdown(drainTimeout: .seconds(5))
        for promise in held.withLock({ $0 }) { promise.succeed(.text("held")) }
        let answer = try #require(try await busy.readResponse())
        #expect(answer.text == "held")
        #expect(answer.headers["Connection"] == "close")
        await server.stoppedAsync()
        #expect(!server.isRunning)
        #expect(server.statistics.openConnections == 0)
    }
}
