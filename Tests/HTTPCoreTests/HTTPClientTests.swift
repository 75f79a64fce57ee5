import Dispatch
import HTTPTesting
import Synchronization
import Testing

@testable import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``HTTPClient`` (libcurl's multi interface on its own loop) on both event loops, against real loopback servers:
/// HTTPCore's own for well-behaved answers, a scripted socket for broken ones (reset, cut short, nothing at all).
@Suite struct HTTPClientTests {
    static let loops: [HTTPServer.Configuration.EventLoopKind] = {
        #if os(Linux)
            [.epoll, .dispatch]
        #else
            [.dispatch]
        #endif
    }()

    func client(_ kind: HTTPServer.Configuration.EventLoopKind, maximumBytes: Int? = nil) throws -> HTTPClient {
        var configuration = HTTPClient.Configuration(eventLoop: kind)
        if let maximumBytes { configuration.maximumResponseBytes = maximumBytes }
        return try HTTPClient(configuration: configuration)
    }

    /// A server answering `GET /json` with a small document, `POST /echo` with the body it got and the request id
    /// it saw, `GET /big` with 64 KiB of compressible JSON, `GET /slow` after 300 ms and `GET /held` only when the
    /// test releases it (`held`, after the client's call has ended).
    func withServer(_ body: (HTTPServer, Held) async throws -> Void) async throws {
        let held = Held()
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            switch request.path {
            case "/json": return .json(Array(#"{"ok":true}"#.utf8))
            case "/echo":
                return .response(
                    .json(request.body, headers: ["X-Seen-Request-ID": request.headers["X-Request-ID"] ?? "none"]))
            case "/method":
                let seen = "\(request.method)|\(String(decoding: request.body, as: UTF8.self))"
                return .response(.text(seen, headers: ["X-Seen": seen]))
            case "/big":
                return .json(
                    Array(
                        ("[" + repeatElement(#"{"row":"a row of a long list"}"#, count: 2_000).joined(separator: ",")
                            + "]").utf8))
            case "/slow":
                return .deferred { promise in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) {
                        promise.succeed(.json(Array("{}".utf8)))
                    }
                }
            case "/held":
                return .deferred { promise in
                    held.promises.withLock { $0.append(promise) }
                    held.arrived.signal()
                }
            default: return .text("no", status: .notFound)
            }
        }
        try server.start()
        defer {
            held.release()
            server.shutdown()
        }
        try await body(server, held)
    }

    /// Answers withheld by `GET /held`: the server has not answered while ``answered`` is 0.
    final class Held: Sendable {
        let promises = Mutex<[HTTPPromise]>([])
        let answered = Atomic<Int>(0)
        /// Signalled as each withheld request reaches the server.
        let arrived = TestSignal()

        var waiting: Int { promises.withLock { $0.count } }

        func release() {
            for promise in promises.withLock({ promises in
                defer { promises = [] }
                return promises
            }) {
                answered.add(1, ordering: .relaxed)
                promise.succeed(.json(Array("{}".utf8)))
            }
        }
    }

    @Test(arguments: loops) func callsReuseOneConnection(_ kind: HTTPServer.Configuration.EventLoopKind) async throws {
        let client = try client(kind)
        defer { client.shutdown() }
        try await withServer { server, _ in
            let base = "http://" + server.localAddress
            for index in 0..<50 {
                let response = try await client.execute(HTTPClientRequest(url: base + "/json"))
                #expect(response.status == 200)
                #expect(response.body == Array(#"{"ok":true}"#.utf8))
                #expect(response.header("content-type") == "application/json")
                let echo = try await client.execute(
                    HTTPClientRequest(
                        method: "POST", url: base + "/echo", headers: [("X-Request-ID", "r-\(index)")],
                        body: Array(#"{"n":\#(index)}"#.utf8)))
                #expect(echo.body == Array(#"{"n":\#(index)}"#.utf8))
                #expect(echo.header("X-Seen-Request-ID") == "r-\(index)")
            }
            #expect(server.statistics.connectionsAccepted == 1, "100 sequential calls share one kept-alive connection")
            let missing = try await client.execute(HTTPClientRequest(url: base + "/nothing"))
            #expect(missing.status == 404, "a non-2xx answer is an answer, not an error")
        }
    }

    /// Easy handles are reused without `curl_easy_reset`: every method and body after any other on one handle
    /// reaches the server as sent (a POST's body does not follow into a GET or a DELETE, a HEAD asks for no body).
    @Test(arguments: loops) func methodsFollowOneAnotherOnAReusedHandle(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        let client = try client(kind)
        defer { client.shutdown() }
        try await withServer { server, _ in
            let url = "http://\(server.localAddress)/method"
            let steps: [(method: String, body: String?, seen: String)] = [
                ("POST", "one", "POST|one"), ("GET", nil, "GET|"), ("HEAD", nil, "HEAD|"), ("DELETE", nil, "DELETE|"),
                ("PUT", "two", "PUT|two"), ("POST", nil, "POST|"), ("GET", nil, "GET|"),
                ("PATCH", "three", "PATCH|three"),
                ("HEAD", nil, "HEAD|"), ("POST", "four", "POST|four"),
            ]
            for _ in 0..<2 {
                for step in steps {
                    let response = try await client.execute(
                        HTTPClientRequest(method: step.method, url: url, body: step.body.map { Array($0.utf8) }))
                    #expect(response.header("x-seen") == step.seen, "\(step.method) \(step.body ?? "-")")
                    #expect(response.body == (step.method == "HEAD" ? [] : Array(step.seen.utf8)))
                }
            }
        }
    }

    /// Header fields are read from the lines as received: a lookup in any case, every field in order.
    @Test func headerFieldsAreReadOnDemand() {
        let response = HTTPClientResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("X-Many", "a"), ("x-many", "b")])
        #expect(response.header("content-type") == "application/json")
        #expect(response.header("X-MANY") == "a")
        #expect(response.header("missing") == nil)
        #expect(response.headers.map(\.name) == ["Content-Type", "X-Many", "x-many"])
        #expect(response.headers.map(\.value) == ["application/json", "a", "b"])
    }

    @Test(arguments: loops) func compressedAnswersAreDecoded(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        let client = try client(kind)
        defer { client.shutdown() }
        try await withServer { server, _ in
            let response = try await client.execute(HTTPClientRequest(url: "http://\(server.localAddress)/big"))
            #expect(response.header("content-encoding") == "gzip", "libcurl asked for it")
            #expect(response.body.count > 60_000)
            #expect(response.body.starts(with: Array(#"[{"row":"#.utf8)))
            #expect(response.body.last == UInt8(ascii: "]"))
        }
    }

    /// The answer is withheld until the call has ended: only libcurl's timer can have ended it (no bound on
    /// elapsed time, which a loaded machine would break).
    @Test(arguments: loops) func anAnswerPastTheTimeoutIsATimeout(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        let client = try client(kind)
        defer { client.shutdown() }
        try await withServer { server, held in
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.execute(
                    HTTPClientRequest(url: "http://\(server.localAddress)/held", timeout: .milliseconds(50)))
            }
            #expect(error?.kind == .timeout)
            #expect(held.answered.load(ordering: .relaxed) == 0, "failed at the timeout, not at an answer")
            held.release()
            let late = try await client.execute(
                HTTPClientRequest(url: "http://\(server.localAddress)/slow", timeout: .seconds(30)))
            #expect(late.status == 200, "an answer within the timeout is an answer")
        }
    }

    @Test(arguments: loops) func aCancelledCallEnds(_ kind: HTTPServer.Configuration.EventLoopKind) async throws {
        let client = try client(kind)
        defer { client.shutdown() }
        try await withServer { server, held in
            let url = "http://\(server.localAddress)/held"
            let call = Task { () async -> HTTPClientError.Kind? in
                do {
                    _ = try await client.execute(HTTPClientRequest(url: url, timeout: .seconds(60)))
                    return nil
                } catch { return (error as? HTTPClientError)?.kind }
            }
            // Cancel once the request is at the server, so the transfer is in flight on the loop.
            try await held.arrived.wait(timeout: .seconds(30))
            try #require(held.waiting == 1, "the request reached the server")
            call.cancel()
            let kind = await call.value
            #expect(kind == .cancelled)
            #expect(held.answered.load(ordering: .relaxed) == 0, "ended by the cancellation, not by an answer")
        }
    }

    @Test(arguments: loops) func aLargerAnswerThanTheLimitIsRefused(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        let client = try client(kind, maximumBytes: 10_000)
        defer { client.shutdown() }
        try await withServer { server, _ in
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.execute(HTTPClientRequest(url: "http://\(server.localAddress)/big"))
            }
            #expect(error?.kind == .responseTooLarge)
            let small = try await client.execute(HTTPClientRequest(url: "http://\(server.localAddress)/json"))
            #expect(small.status == 200, "the client keeps working")
        }
    }

    @Test(arguments: loops) func brokenUpstreamsAreNamedForWhatHappened(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        let client = try client(kind)
        defer { client.shutdown() }
        let cases: [(ScriptedUpstream.Ending, HTTPClientError.Kind)] = [
            (.reset, .connectionLost),
            (.closeWithoutAnswer, .connectionLost),
            (.truncatedBody, .truncated),
            (.truncatedChunks, .truncated),
            (.garbage, .invalidResponse),
        ]
        for (ending, expected) in cases {
            let upstream = try ScriptedUpstream(ending)
            let error = await #expect(throws: HTTPClientError.self, "\(ending)") {
                try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(upstream.port)/x"))
            }
            #expect(error?.kind == expected, "\(ending): \(error?.message ?? "")")
            upstream.finish()
        }
        let refusing = try RefusingPort()
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(refusing.port)/x"))
        }
        withExtendedLifetime(refusing) {}
        #expect(error?.kind == .connect)
        #expect(error?.message.contains(" ms") == false, "no timings in the message: \(error?.message ?? "")")
    }

    @Test func theLimitHoldsTransfersOnTheLoop() async throws {
        let client = try client(.platformDefault)
        defer { client.shutdown() }
        try await withServer { server, _ in
            let limit = HTTPClient.ConcurrencyLimit(2)
            let url = "http://\(server.localAddress)/slow"
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await client.execute(HTTPClientRequest(url: url, timeout: .seconds(5), limit: limit)).status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(ContinuousClock.now - start >= .milliseconds(590), "4 calls of 300 ms, 2 at a time")
        }
    }

    #if os(Linux)
        /// 100,000 calls, 32 at a time: descriptors and resident memory stay where they were after the first
        /// 10,000 (a transfer, an easy handle, a header list or a pooled connection leaked per call would show).
        @Test func aHundredThousandCallsLeakNothing() async throws {
            let client = try client(.platformDefault)
            defer { client.shutdown() }
            try await withServer { server, _ in
                let url = "http://\(server.localAddress)/json"
                func calls(_ count: Int) async throws {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for worker in 0..<32 {
                            group.addTask {
                                for _ in stride(from: worker, to: count, by: 32) {
                                    let response = try await client.execute(HTTPClientRequest(url: url))
                                    guard response.status == 200 else { throw HTTPClientError(.other, "status") }
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                try await calls(10_000)
                let descriptors = Self.openDescriptors()
                let resident = Self.residentBytes()
                try await calls(90_000)
                #expect(
                    Self.openDescriptors() <= descriptors + 4, "descriptors: \(descriptors) → \(Self.openDescriptors())"
                )
                #expect(
                    Self.residentBytes() < resident + 16 << 20,
                    "resident: \(resident >> 20) → \(Self.residentBytes() >> 20) MiB")
                // 32 at a time on kept-alive connections; the server ends one after 10,000 requests
                // (maxRequestsPerConnection) and libcurl does not spread calls evenly, so a few more may open.
                #expect(
                    server.statistics.connectionsAccepted <= 64,
                    "connections are reused: \(server.statistics.connectionsAccepted) for 100,000 calls")
            }
        }

        static func openDescriptors() -> Int {
            guard let directory = opendir("/proc/self/fd") else { return -1 }
            defer { closedir(directory) }
            var count = 0
            while readdir(directory) != nil { count += 1 }
            return count
        }

        static func residentBytes() -> Int {
            guard let file = fopen("/proc/self/statm", "r") else { return -1 }
            defer { fclose(file) }
            var size = 0
            var resident = 0
            guard readStatm(file, &size, &resident) else { return -1 }
            return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
    #endif

    /// Bytes owned by a test, sent in place (``HTTPClientSharedBody``).
    final class SharedBytes: HTTPClientSharedBody, @unchecked Sendable {
        let pointer: UnsafeMutableRawBufferPointer

        init(_ bytes: [UInt8]) {
            pointer = .allocate(byteCount: bytes.count, alignment: 1)
            bytes.withUnsafeBytes { pointer.copyMemory(from: $0) }
        }

        deinit { pointer.deallocate() }

        var bodyBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(pointer) }
    }

    /// `start` with its completion awaited, and whether the completion ran on a server's event loop.
    func started(_ client: HTTPClient, _ request: HTTPClientRequest) async -> (
        Result<HTTPClientResponse, HTTPClientError>, onServerLoop: Bool
    ) {
        await withCheckedContinuation { continuation in
            client.start(request) { result in continuation.resume(returning: (result, EventLoop.current != nil)) }
        }
    }

    /// A started request (``HTTPClient/start(_:completion:)``) sends a shared body as it is — larger than libcurl's
    /// upload buffer, and empty —, completes on the client's own loop, never on the server's, and leaves nothing
    /// behind on the reused handle: the calls after it send their own bodies or none.
    @Test(arguments: loops) func aStartedRequestSendsItsSharedBodyInPlace(
        _ kind: HTTPServer.Configuration.EventLoopKind
    )
        async throws
    {
        var configuration = HTTPClient.Configuration(eventLoop: kind)
        configuration.useServerEventLoops = true  // the default, said: `start` ignores it
        let client = try HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        try await withServer { server, _ in
            let url = "http://\(server.localAddress)/method"
            let large = (0..<200_000).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            for _ in 0..<2 {
                // `/echo` answers the body in its body (`/method` also puts it in a header field: too large for one).
                var post = HTTPClientRequest(method: "POST", url: "http://\(server.localAddress)/echo")
                post.sharedBody = SharedBytes(large)
                let (result, onServerLoop) = await started(client, post)
                let response = try result.get()
                #expect(!onServerLoop)
                #expect(response.body == large)
                let get = try await client.execute(HTTPClientRequest(url: url))
                #expect(get.body == Array("GET|".utf8), "the shared body does not follow into a GET")
                var put = HTTPClientRequest(method: "PUT", url: url)
                put.sharedBody = SharedBytes(Array("in place".utf8))
                #expect(try await started(client, put).0.get().body == Array("PUT|in place".utf8))
                var empty = HTTPClientRequest(method: "POST", url: url)
                empty.sharedBody = SharedBytes([])
                #expect(try await started(client, empty).0.get().body == Array("POST|".utf8))
                let delete = try await client.execute(HTTPClientRequest(method: "DELETE", url: url))
                #expect(delete.body == Array("DELETE|".utf8))
                let copied = try await client.execute(
                    HTTPClientRequest(method: "POST", url: url, body: Array("copied".utf8)))
                #expect(copied.body == Array("POST|copied".utf8))
            }
        }
        // Started from a server's event loop (a responder's thread), it still runs and completes on the client's.
        let answered = TestSignal()
        let observed = Mutex<Bool?>(nil)
        try await withServer { upstream, _ in
            var frontConfiguration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
            frontConfiguration.eventLoop = kind
            let front = HTTPServer(configuration: frontConfiguration) { _ in
                client.start(HTTPClientRequest(url: "http://\(upstream.localAddress)/json")) { result in
                    observed.withLock { $0 = (try? result.get().status) == 200 && EventLoop.current == nil }
                    answered.signal()
                }
                return .json(Array("{}".utf8))
            }
            try front.start()
            defer { front.shutdown() }
            _ = try await client.execute(HTTPClientRequest(url: "http://\(front.localAddress)/"))
            try await answered.wait(for: 1, timeout: .seconds(10))
        }
        #expect(observed.withLock { $0 } == true)
    }

    @Test func aStartedRequestOnAShutDownClientCompletesAtOnce() async throws {
        let client = try client(.platformDefault)
        client.shutdown()
        let called = Mutex<HTTPClientError.Kind?>(nil)
        client.start(HTTPClientRequest(url: "http://127.0.0.1:1/")) { result in
            if case .failure(let error) = result { called.withLock { $0 = error.kind } }
        }
        #expect(called.withLock { $0 } == .shutdown, "called before start returned")
    }

    @Test func aShutDownClientFailsCallsAtOnce() async throws {
        let client = try client(.platformDefault)
        client.shutdown()  // the inbox refuses new calls from here on, before the loop has even run
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/"))
        }
        #expect(error?.kind == .shutdown)
    }

    @Test func timingsAreTakenOutOfMessages() {
        #expect(
            HTTPClientLoop.withoutTimings(
                "Failed to connect to 127.0.0.1 port 1 after 3 ms: Couldn't connect to server")
                == "Failed to connect to 127.0.0.1 port 1: Couldn't connect to server")
        #expect(
            HTTPClientLoop.withoutTimings("Connection timed out after 1001 milliseconds")
                == "Connection timed out after 1001 milliseconds")
    }
}

/// A loopback socket that reads one request and then misbehaves as told; on a thread of its own.
final class ScriptedUpstream: Sendable {
    enum Ending: Sendable, CustomStringConvertible {
        /// Sends half a head, then resets the connection (RST).
        case reset
        /// Closes without a byte.
        case closeWithoutAnswer
        /// Announces 100 bytes, sends 3, closes.
        case truncatedBody
        /// A chunked body without its last chunk, then closes.
        case truncatedChunks
        /// Not HTTP at all.
        case garbage

        var description: String {
            switch self {
            case .reset: "reset"
            case .closeWithoutAnswer: "closeWithoutAnswer"
            case .truncatedBody: "truncatedBody"
            case .truncatedChunks: "truncatedChunks"
            case .garbage: "garbage"
            }
        }
    }

    let fd: Int32
    let port: Int
    private let thread = BlockingThread(name: "scripted upstream")

    init(_ ending: Ending) throws {
        (fd, port) = try Self.listening()
        let fd = self.fd
        thread.post {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var received: [UInt8] = []
            while !received.containsHeadEnd {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                received += buffer[0..<count]
            }
            func send(_ text: String) {
                let bytes = Array(text.utf8)
                _ = bytes.withUnsafeBytes { Platform.send(connection, $0.baseAddress!, $0.count) }
            }
            switch ending {
            case .reset:
                send("HTTP/1.1 200 OK\r\nContent-")
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            case .closeWithoutAnswer: break
            case .truncatedBody: send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc")
            case .truncatedChunks: send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n")
            case .garbage: send("SSH-2.0-OpenSSH_9.2\r\n\r\n")
            }
            close(connection)
        }
    }

    func finish() {
        thread.finish()
    }

    deinit { close(fd) }

    private static func listening() throws -> (Int32, Int) {
        let (fd, port) = try RefusingPort.bindLoopback()
        try #require(listen(fd, 4) == 0)
        return (fd, port)
    }
}

#if os(Linux)
    /// The first two fields of `/proc/self/statm` (pages).
    private func readStatm(_ file: UnsafeMutablePointer<FILE>, _ size: inout Int, _ resident: inout Int) -> Bool {
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return false }
        let fields = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.split(separator: " ")
        guard fields.count >= 2, let first = Int(fields[0]), let second = Int(fields[1]) else { return false }
        size = first
        resident = second
        return true
    }
#endif

extension [UInt8] {
    fileprivate var containsHeadEnd: Bool {
        count >= 4 && indices.dropLast(3).contains { self[$0...].starts(with: [13, 10, 13, 10]) }
    }
}
