/// Where a ``PageStore`` gets bytes from. The host supplies it; the store never opens a socket itself.
///
/// A loader returns the raw response body of a successful request and throws a ``PageLoadError`` otherwise
/// (a `CancellationError` when its task is cancelled). Decoding is the store's job, off the main actor.
public protocol PageLoader: Sendable {
    /// Performs `request` and returns the response body.
    func load(_ request: PageRequest) async throws -> [UInt8]
}
