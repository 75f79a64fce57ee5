import Synchronization

/// An HTTP client for upstream services on libcurl's multi interface, driven by its own event loop (an epoll
/// thread on Linux, or Dispatch sources; ``Configuration/eventLoop``): a call hands its request to the loop and
/// is resumed when the answer is in, with no thread blocked and no Foundation in between. The loop keeps one
/// connection pool and DNS cache for all calls, negotiates HTTP/2 over TLS, decodes compressed answers and
/// enforces per-transfer timeouts, a response size limit and per-upstream concurrency limits
/// (``ConcurrencyLimit``).
///
/// One client serves any number of upstreams; ``shared`` is the process's default, started on first use.
public final class HTTPClient: Sendable {
    public let configuration: Configuration
    let loop: HTTPClientLoop

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
        let index = Self.count.add(1, ordering: .relaxed).oldValue
        loop = try HTTPClientLoop(configuration: configuration, name: "http-client-\(index)")
    }

    deinit { loop.submit(.stop) }

    /// Sends `request` and returns the answer, whatever its status.
    /// - Throws: ``HTTPClientError`` for a transport failure, a timeout, a cancelled task or an oversized answer.
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let transfer = ClientTransfer(request, maximumBytes: configuration.maximumResponseBytes)
        let loop = self.loop
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

    /// Fails the calls in flight with ``HTTPClientError/Kind/shutdown``, closes the pooled connections and stops
    /// the loop; later calls fail at once.
    public func shutdown() {
        loop.submit(.stop)
    }
}
