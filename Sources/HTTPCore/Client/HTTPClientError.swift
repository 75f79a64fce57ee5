/// A failed ``HTTPClient`` transfer: what went wrong, and libcurl's words for it.
public struct HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The transfer did not finish within its timeout.
        case timeout
        /// No connection: the name did not resolve, or the upstream refused or could not be reached.
        case connect
        /// The connection broke while sending or receiving (reset, closed before any answer).
        case connectionLost
        /// The answer ended before the length it announced, or its chunked encoding was cut.
        case truncated
        /// The body is larger than ``HTTPClient/Configuration/maximumResponseBytes``.
        case responseTooLarge
        /// The answer could not be decoded (a bad compression stream, an invalid status line or header).
        case invalidResponse
        /// The TLS handshake or the certificate check failed.
        case tls
        /// The URL is not an absolute `http` or `https` URL.
        case invalidURL
        /// The calling task was cancelled.
        case cancelled
        /// The client was shut down.
        case shutdown
        /// Any other libcurl failure.
        case other
    }

    public var kind: Kind
    /// What happened, without timings, so the text is the same for the same failure.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
