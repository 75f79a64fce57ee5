import HTTPCore

/// The project's one test socket client: HTTP/1.1 over a real loopback connection, for tests that control the
/// exact bytes sent (pipelining, odd targets, tampered cursors, slow or truncated requests) and read the exact
/// bytes answered. Every blocking socket call runs on the client's own ``BlockingThread`` with a receive and send
/// timeout, so a test awaiting it never holds a thread of the Swift concurrency pool, and every wait is bounded.
///
/// ```swift
/// let http = HTTPTestClient(port: server.port)
/// let page = try await http.get("/v1/pages/home")          // connects on first use, keeps the connection alive
/// let raw = try await HTTPTestClient.connect(port: port)   // connects now: throws SystemError(ECONNREFUSED) …
/// try await raw.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
/// let response = try await raw.readResponse()               // nil when the server closed without answering
/// ```
public final class HTTPTestClient: Sendable {
    /// A protocol-level surprise (closed mid-head, bad status line, …). Socket failures throw `SystemError`.
    public struct ClientError: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public var host: String { connection.host }
    public var port: Int { connection.port }
    let thread: BlockingThread
    private let ownsThread: Bool
    let connection: SocketConnection

    /// A client that connects on first use.
    ///
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 literal (default `127.0.0.1`).
    ///   - timeoutSeconds: the bound of every single receive and send (default 30 s: on a busy one-core machine an
    ///     answer that needs the concurrency pool can take over 10 s).
    ///   - thread: where the blocking calls run; by default a thread of the client's own. Clients sharing a
    ///     thread run their calls one after another (fine for many idle connections, e.g. 500 slow clients).
    public init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 30, thread: BlockingThread? = nil) {
        connection = SocketConnection(host: host, port: port, timeoutSeconds: timeoutSeconds)
        self.thread = thread ?? BlockingThread(name: "test-client-\(port)")
        ownsThread = thread == nil
    }

    /// A client connected now: throws `SystemError(function: "connect", errno:)` when the server refuses.
    public static func connect(
        host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 30, thread: BlockingThread? = nil
    ) async throws -> HTTPTestClient {
        let client = HTTPTestClient(host: host, port: port, timeoutSeconds: timeoutSeconds, thread: thread)
        try await client.onThread { try $0.connect() }
        return client
    }

    deinit {
        let connection = self.connection
        thread.post { connection.close() }
        if ownsThread { thread.finish() }
    }

    private func onThread<T: Sendable>(_ job: @escaping @Sendable (SocketConnection) throws -> T) async throws -> T {
        let connection = self.connection
        return try await thread.run { try job(connection) }
    }

    /// Closes the connection; the next request opens a new one.
    public func close() async {
        _ = try? await onThread { $0.close() }
    }

    /// Sends raw bytes on the connection (connecting first if needed).
    public func send(raw bytes: [UInt8]) async throws {
        try await onThread { try $0.send(bytes) }
    }

    /// Sends raw text on the connection (connecting first if needed).
    public func send(_ text: String) async throws {
        try await send(raw: Array(text.utf8))
    }

    /// Sends one request with `Host` (and `Content-Length` when there is a body) and reads its response.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host.contains(":") ? "[\(host)]" : host):\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + (body ?? [])
        return try await onThread { try $0.request(bytes, method: method) }
    }

    /// Reads the next response, interim (1xx) ones included; `nil` when the connection closed before any byte of it.
    /// `method: "HEAD"` reads no body.
    public func readResponse(method: String = "GET") async throws -> Response? {
        try await onThread { try $0.readResponse(method: method, interim: true) }
    }

    /// Reads until `marker` has arrived (for streamed bodies such as server-sent events); returns the raw bytes up
    /// to and including it, chunk framing included. Bounded by the receive timeout.
    public func read(through marker: String) async throws -> String {
        let bytes = Array(marker.utf8)
        return String(decoding: try await onThread { try $0.read(through: bytes) }, as: UTF8.self)
    }

    /// Reads until the server closes the connection; returns every byte not yet read.
    public func readToEOF() async throws -> [UInt8] {
        try await onThread { try $0.readToEOF() }
    }

    /// True when the server closed the connection (EOF with nothing unread).
    public func isClosedByPeer() async throws -> Bool {
        try await onThread { try $0.isClosedByPeer() }
    }

    /// Sends `bytes`, then reads until the server closes, an error, or the receive timeout, timing every read.
    public func exchange(raw bytes: [UInt8]) async -> RawExchange {
        (try? await onThread { $0.exchange(bytes) }) ?? RawExchange(bytes: [], error: -1)
    }
}
