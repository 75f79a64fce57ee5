/// One request an ``HTTPClient`` sends.
public struct HTTPClientRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The absolute URL, `http` or `https`.
    public var url: String
    /// Header fields to send, in order.
    public var headers: [(name: String, value: String)]
    /// The body; `nil` sends none.
    public var body: [UInt8]?
    /// A body sent from memory its owner keeps, instead of ``body``: libcurl reads it in place (no copy made), and
    /// the request holds the owner until the transfer is over.
    public var sharedBody: (any HTTPClientSharedBody)?
    /// The time the whole transfer may take, from the moment it starts (after waiting for ``limit``): connect,
    /// send and the last byte of the answer.
    public var timeout: Duration
    /// A concurrency limit shared by the requests that carry it: past it, requests wait in order before they
    /// start. `nil` for none.
    public var limit: HTTPClient.ConcurrencyLimit?

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(1), limit: HTTPClient.ConcurrencyLimit? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.limit = limit
    }
}

/// Bytes a request sends in place (``HTTPClientRequest/sharedBody``): memory that stays where it is, unchanged,
/// while the object lives.
public protocol HTTPClientSharedBody: AnyObject, Sendable {
    /// The bytes; valid and unchanged for the object's lifetime.
    var bodyBytes: UnsafeRawBufferPointer { get }
}
