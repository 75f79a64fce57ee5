import HTTPCore

extension HTTPTestClient {
    /// The synchronous view of one connection, handed out only inside a job on the connection's own thread
    /// (``HTTPTestClient/batch(_:on:_:)``).
    public struct Blocking {
        let connection: SocketConnection

        public func send(_ text: String) throws { try connection.send(Array(text.utf8)) }

        public func send(raw bytes: [UInt8]) throws { try connection.send(bytes) }

        /// The next response, interim ones included; `nil` when the connection closed before any byte of it.
        public func readResponse(method: String = "GET") throws -> Response? {
            try connection.readResponse(method: method, interim: true)
        }

        public func isClosedByPeer() throws -> Bool { try connection.isClosedByPeer() }
    }

    /// Runs `body` once, on `thread`, with the blocking view of every client's connection, in order: hundreds of
    /// connections, or a timed sequence of requests, without a trip through the concurrency pool between steps.
    /// Every client must have been created on `thread`; a connection not yet open connects in its first `send`.
    public static func batch<T: Sendable>(
        _ clients: [HTTPTestClient], on thread: BlockingThread,
        _ body: @escaping @Sendable ([Blocking]) throws -> T
    ) async throws -> T {
        precondition(clients.allSatisfy { $0.thread === thread }, "batch: every client must run on `thread`")
        let connections = clients.map(\.connection)
        return try await thread.run { try body(connections.map(Blocking.init)) }
    }
}
