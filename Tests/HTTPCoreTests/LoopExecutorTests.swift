import HTTPTesting
import Synchronization
import Testing

@testable import HTTPCore

/// The event loop as a task executor (``HTTPReply/task(_:)``) and ``HTTPClient`` calls hosted on it, on both event
/// loops: a task started for a request runs on that request's loop, its children and its resumptions too, and an
/// upstream call it makes runs on a libcurl multi handle of the same loop, so no await hops to another thread.
@Suite struct LoopExecutorTests {
    typealias Kind = HTTPServer.Configuration.EventLoopKind

    /// Starts a server of `kind` on loopback (`workers` loops) answering with `handler`, runs `body`, stops it.
    func withServer(
        _ kind: Kind, workers: Int = 1, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPReply,
        _ body: (HTTPServer) async throws -> Void
    ) async throws {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.eventLoop = kind
        configuration.workerThreads = workers
        let server = HTTPServer(configuration: configuration, handler: handler)
        try server.start()
        do {
            try await body(server)
        } catch {
            server.shutdown(drainTimeout: .zero)
            await server.stoppedAsync()
            throw error
        }
        server.shutdown(drainTimeout: .zero)
        await server.stoppedAsync()
    }

    /// The identity of the executor the calling code runs on, when it is a loop's.
    static func loopID() -> ObjectIdentifier? {
        HTTPServer.currentTaskExecutor.map { ObjectIdentifier($0) }
    }

    @Test(arguments: HTTPClientTests.loops) func aTaskReplyRunsOnItsLoop(_ kind: Kind) async throws {
        try await withServer(kind) { _ in
            .task {
                let start = Self.loopID()
                async let child = { Self.loopID() }()
                await Task.yield()
                let afterYield = Self.loopID()
                let childLoop = await child
                let text = "start=\(start != nil) same=\(start == afterYield && start == childLoop)"
                return .text(text)
            }
        } _: { server in
            let response = try await HTTPTestClient(port: server.port).get("/")
            #expect(response.status == 200)
            #expect(response.text == "start=true same=true", "the task, its child and its resumption ran on the loop")
        }
        #expect(Self.loopID() == nil, "a test task is not on a loop")
    }

    @Test(arguments: HTTPClientTests.loops) func upstreamCallsRunOnTheCallersLoop(_ kind: Kind) async throws {
        let client = try HTTPClient(configuration: .init(eventLoop: kind))
        defer { client.shutdown() }
        let upstream = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { _ in
            .json(Array(#"{"ok":true}"#.utf8))
        }
        try upstream.start()
        defer { upstream.shutdown() }
        let upstreamURL = "http://\(upstream.localAddress)/json"
        try await withServer(kind) { _ in
            .task {
                var same = true
                var bodies = 0
                for _ in 0..<20 {
                    let before = Self.loopID()
                    let answer = try await client.execute(HTTPClientRequest(url: upstreamURL))
                    same = same && before != nil && Self.loopID() == before
                    if answer.body == Array(#"{"ok":true}"#.utf8) { bodies += 1 }
                }
                return .text("same=\(same) bodies=\(bodies) hosted=\(client.hostedLoopCount)")
            }
        } _: { server in
            let response = try await HTTPTestClient(port: server.port).get("/")
            #expect(response.text == "same=true bodies=20 hosted=1")
        }
        #expect(upstream.statistics.connectionsAccepted == 1, "the loop's pool kept one upstream connection alive")
        // The server loop ended: its client loop finished with it and was forgotten.
        #expect(client.hostedLoopCount == 0)
        let offLoop = try await client.execute(HTTPClientRequest(url: upstreamURL))
        #expect(offLoop.status == 200, "a call off the loops goes to the client's own loop")
    }

    /// A hosted call in flight when its server loop ends fails with `shutdown`, and the task goes on (in the
    /// global executor): nothing waits forever for a loop that is gone.
    @Test(arguments: HTTPClientTests.loops) func aHostedCallEndsWithItsLoop(_ kind: Kind) async throws {
        let client = try HTTPClient(configuration: .init(eventLoop: kind))
        defer { client.shutdown() }
        let arrived = TestSignal()
        let ended = TestSignal()
        let outcome = Mutex<String>("")
        let withheld = Mutex<[HTTPPromise]>([])
        let upstream = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { _ in
            .deferred { promise in
                withheld.withLock { $0.append(promise) }  // answered only after the test
                arrived.signal()
            }
        }
        try upstream.start()
        defer {
            for promise in withheld.withLock({ $0 }) { promise.succeed(.json(Array("{}".utf8))) }
            upstream.shutdown(drainTimeout: .zero)
        }
        let upstreamURL = "http://\(upstream.localAddress)/held"
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.eventLoop = kind
        configuration.workerThreads = 1
        let server = HTTPServer(configuration: configuration) { _ in
            .task {
                do {
                    _ = try await client.execute(HTTPClientRequest(url: upstreamURL, timeout: .seconds(60)))
                    outcome.withLock { $0 = "answered" }
                } catch {
                    outcome.withLock { $0 = "\((error as? HTTPClientError)?.kind.rawValue ?? "\(error)")" }
                }
                ended.signal()
                return .text("late")
            }
        }
        try server.start()
        let http = HTTPTestClient(port: server.port)
        let request = Task { try? await http.get("/") }
        try await arrived.wait(for: 1, timeout: .seconds(10))
        server.shutdown(drainTimeout: .zero)
        await server.stoppedAsync()
        try await ended.wait(for: 1, timeout: .seconds(10))
        #expect(outcome.withLock { $0 } == "shutdown")
        _ = await request.value
        #expect(client.hostedLoopCount == 0)
    }

    /// A concurrency limit shared by calls from two server loops: the slot a call on one loop frees is handed to a
    /// call waiting on the other, which starts there; the upstream never sees more than the limit at once.
    @Test(arguments: HTTPClientTests.loops) func aLimitIsSharedAcrossLoops(_ kind: Kind) async throws {
        let client = try HTTPClient(configuration: .init(eventLoop: kind))
        defer { client.shutdown() }
        let limit = HTTPClient.ConcurrencyLimit(2)
        let inFlight = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let upstream = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { _ in
            let now = inFlight.add(1, ordering: .relaxed).newValue
            most.max(now, ordering: .relaxed)
            return .task {
                try await Task.sleep(for: .milliseconds(5))
                inFlight.subtract(1, ordering: .relaxed)
                return .json(Array("{}".utf8))
            }
        }
        try upstream.start()
        defer { upstream.shutdown() }
        let upstreamURL = "http://\(upstream.localAddress)/"
        try await withServer(kind, workers: 2) { _ in
            .task {
                for _ in 0..<5 {
                    _ = try await client.execute(
                        HTTPClientRequest(url: upstreamURL, timeout: .seconds(20), limit: limit))
                }
                return .text("ok")
            }
        } _: { server in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 {
                    group.addTask { try await HTTPTestClient(port: server.port).get("/").status }
                }
                for try await status in group { #expect(status == 200) }
            }
        }
        #expect(most.load(ordering: .relaxed) <= 2, "the upstream saw at most the limit at once")
        #expect(most.load(ordering: .relaxed) >= 1)
    }
}
