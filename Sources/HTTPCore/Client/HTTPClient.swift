import Synchronization

/// An HTTP client for upstream services on libcurl's multi interface, driven by an event loop: a call made by a
/// task on one of an ``HTTPServer``'s event loops (``HTTPReply/task(_:)``) runs on a multi handle of that loop,
/// whose sockets and timer the loop serves beside its connections (``Configuration/useServerEventLoops``); any
/// other call goes to the client's own loop (an epoll thread on Linux, or Dispatch sources;
/// ``Configuration/eventLoop``). Either way the call hands its request to the loop and is resumed when the answer
/// is in, with no thread blocked and no Foundation in between. The loop keeps one
/// connection pool and DNS cache for all calls, negotiates HTTP/2 over TLS, decodes compressed answers and
/// enforces per-transfer timeouts, a response size limit and per-upstream concurrency limits
/// (``ConcurrencyLimit``).
///
/// One client serves any number of upstreams; ``shared`` is the process's default, started on first use. Each
/// loop it runs on keeps its own connection pool and DNS cache.
public final class HTTPClient: Sendable {
    public let configuration: Configuration
    /// The client's own loop, for calls made off the server's event loops.
    let loop: HTTPClientLoop
    /// Tells this client's loops hosted on server event loops apart from other clients'.
    let id: Int
    private let hosted = Mutex<(loops: [HTTPClientLoop], shutDown: Bool)>(([], false))

    /// The process's client (default configuration), started on first use.
    public static let shared: HTTPClient = {
        do { return try HTTPClient(configuration: Configuration()) } catch {
            fatalError("cannot start the shared HTTP client: \(error)")
        }
    }()

    private static let count = Atomic<Int>(0)

    /// Starts the client's loop.
    /// - Throws: ``HTTPClientError`` when libcurl or the loop cannot be set up.
    public init(configuration: Configuration = Configuration()) throws(HTTPClientError) {
        self.configuration = configuration
        id = Self.count.add(1, ordering: .relaxed).oldValue
        loop = try HTTPClientLoop(configuration: configuration, name: "http-client-\(id)")
    }

    deinit { shutdown() }

    /// Sends `request` and returns the answer, whatever its status.
    /// - Throws: ``HTTPClientError`` for a transport failure, a timeout, a cancelled task or an oversized answer.
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let transfer = ClientTransfer(request, maximumBytes: configuration.maximumResponseBytes)
        let loop = loopForThisThread()
        transfer.loop = loop
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                transfer.continuation = continuation
                if !loop.submit(.start(transfer)) {
                    transfer.continuation = nil
                    continuation.resume(
                        returning: .failure(HTTPClientError(.shutdown, "the HTTP client was shut down")))
                }
            }
        } onCancel: {
            transfer.cancel()
            loop.submit(.cancel(transfer))
        }
        return try result.get()
    }

    /// Sends `request` on the client's own loop — never on a server's event loop, whichever thread calls — and
    /// calls `completion` with the answer on that loop's thread: for a caller that must not wait in a task nor add
    /// work to the server's loops (the span exporter). `completion` must be short and must not block; it may start
    /// another request. When the client was shut down it is called at once, on the calling thread.
    public func start(
        _ request: HTTPClientRequest,
        completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        let transfer = ClientTransfer(request, maximumBytes: configuration.maximumResponseBytes)
        transfer.loop = loop
        transfer.completion = completion
        guard loop.submit(.start(transfer)) else {
            transfer.completion = nil
            return completion(.failure(HTTPClientError(.shutdown, "the HTTP client was shut down")))
        }
    }

    /// Fails the calls in flight with ``HTTPClientError/Kind/shutdown``, closes the pooled connections and stops
    /// the loop; later calls fail at once.
    public func shutdown() {
        let loops = hosted.withLock { hosted in
            hosted.shutDown = true
            return hosted.loops
        }
        loop.submit(.stop)
        for loop in loops { loop.submit(.stop) }
    }

    /// The loop for a call from this thread: on a server's event loop, the client loop hosted there; else the
    /// client's own.
    private func loopForThisThread() -> HTTPClientLoop {
        guard configuration.useServerEventLoops, let server = EventLoop.current else { return loop }
        return server.hostedLoop(for: self) ?? loop
    }

    /// Keeps a hosted loop to stop it at ``shutdown()``; `false` once the client was shut down.
    func adopt(_ loop: HTTPClientLoop) -> Bool {
        hosted.withLock { hosted in
            guard !hosted.shutDown else { return false }
            hosted.loops.append(loop)
            return true
        }
    }

    /// How many server loops this client runs on now (tests).
    var hostedLoopCount: Int { hosted.withLock { $0.loops.count } }

    /// Forgets a hosted loop that finished (its server loop ended, or the client was shut down).
    func forget(_ loop: HTTPClientLoop) {
        hosted.withLock { $0.loops.removeAll { $0 === loop } }
    }
}
