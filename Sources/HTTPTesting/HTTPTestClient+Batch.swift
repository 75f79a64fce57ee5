import HTTPCore

extension HTTPTestClient {
    /// The synchronous view of one connection, handed out only inside a job on the connection's own thread
    /// (``HTTPTestClient/batch(_:on:_:)``).
    public struct Blocking {
        let connection: SocketConnection

        public func send(_ text: String) throws { try connection.send(Array(text.utf8)) }

        /// The next response, interim ones included; `nil` when the connection closed before any byte of it.
        public func readResponse(method: String = "GET") throws -> Response? {
            try connection.readResponse(method: method, interim: true)
        }

        public func isClosedByPeer() throws -> Bool { try connection.isClosedByPeer() }
    }

    /// Opens `count` clients on `thread` in a single job: the way to hold hundreds of connections without one
    /// thread hop (and one trip through a busy concurrency pool) per connection.
    public static func open(
        _ count: Int, host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 30, on thread: BlockingThread
    ) async throws -> [HTTPTestClient] {
        let clients = (0..<count).map { _ in
            HTTPTestClient(host: host, port: port, timeoutSeconds: timeoutSeconds, thread: thread)
        }
        try await batch(clients, on: thread) { connections in
            for connection in connections { try connection.connection.connect() }
        }
        return clients
    }

    /// Runs `body` once, on `thread`, with the blocking view of every client's connection, in order. Every client
    /// must have been created on `thread`.
    public static func batch<T: Sendable>(
        _ clients: [HTTPTestClient], on thread: BlockingThread,
        _ body: @escaping @Sendable ([Blocking]) throws -> T
    ) async throws -> T {
        precondition(clients.allSatisfy { $0.thread === thread }, "batch: every client must run on `thread`")
        let connections = clients.map(\.connection)
        return try await thread.run { try body(connections.map(Blocking.init)) }
    }
}
