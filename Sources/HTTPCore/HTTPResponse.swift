/// A response value: status, headers and a body.
///
/// The server manages `Content-Length`, `Transfer-Encoding`, `Date` and `Connection` itself; those fields in
/// ``headers`` are ignored (except `Connection: close`, which is honoured). Fields containing CR, LF or other
/// control characters are dropped.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPFields
    public var body: Body
    /// The name of the route that answered, for the access log and metrics (``HTTPAccessLogEntry/route``); never
    /// sent.
    public var route: String?
    /// Fields serialized in advance, written after the body's own fields and before ``headers`` (for fields that
    /// are the same on many responses; a field must not be in both).
    public var headerBlock: HTTPHeaderBlock?
    /// The request id, sent as `X-Request-ID` after ``headerBlock`` (only when it is 1–128 visible ASCII
    /// characters). Set this rather than a field in ``headers``: the server writes it straight into the head, with no
    /// field list to build and check per response. A field of that name in ``headers`` is sent as well.
    public var requestID: String?
    /// Told what the server wrote for this response (status, bytes, encoding, duration), once it is queued: for a
    /// layer that wants to know what went on the wire (a request journal, a trace's server span). Never sent.
    /// `target` is empty unless the server's log sink wants access entries. (``onSent`` sets a closure instead.)
    public var observer: (any HTTPResponseObserver)?
    /// What the application says about the response for the access log and metrics (the page served, a problem
    /// code, upstream time, the trace; ``HTTPAccessLogEntry/annotations``); never sent.
    public var annotations: HTTPResponseAnnotations?

    /// The body kinds.
    public enum Body: Sendable {
        /// No body (`Content-Length: 0` unless the status forbids a body).
        case empty
        /// Bytes produced for this request; gzipped on the fly when the client accepts gzip, the body is at
        /// least ``HTTPServer/Configuration/Compression/minimumSize`` and its `Content-Type` is compressible.
        case bytes([UInt8])
        /// A representation prepared once (identity + gzip + ETag): no per-request compression, `If-None-Match`
        /// answered with 304, zero-copy writes. `Content-Type`, `ETag` and `Vary` come from the ``PreparedBody``.
        case prepared(PreparedBody)
        /// A streamed body sent with chunked transfer coding (close-delimited for HTTP/1.0 clients).
        /// The closure runs on the connection's event-loop thread and must not block; it may hand the
        /// ``HTTPBodyWriter`` to any other thread. Not called for `HEAD`.
        case stream(@Sendable (HTTPBodyWriter) -> Void)
    }

    public init(status: HTTPStatus = .ok, headers: HTTPFields = [:], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A body of bytes with the given content type.
    public static func bytes(
        _ bytes: [UInt8], contentType: String = "application/octet-stream", status: HTTPStatus = .ok,
        headers: HTTPFields = [:]
    ) -> HTTPResponse {
        var fields = headers
        fields.set("Content-Type", contentType)
        return HTTPResponse(status: status, headers: fields, body: .bytes(bytes))
    }

    /// A JSON body (`application/json`).
    public static func json(_ bytes: [UInt8], status: HTTPStatus = .ok, headers: HTTPFields = [:]) -> HTTPResponse {
        .bytes(bytes, contentType: "application/json", status: status, headers: headers)
    }

    /// A UTF-8 text body (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: HTTPStatus = .ok, headers: HTTPFields = [:]) -> HTTPResponse {
        .bytes(Array(text.utf8), contentType: "text/plain; charset=utf-8", status: status, headers: headers)
    }

    /// A prepared (cached) representation.
    public static func prepared(
        _ body: PreparedBody, status: HTTPStatus = .ok, headers: HTTPFields = [:]
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: .prepared(body))
    }
}

/// What a handler answers: a response now, a response later, or a deliberate fault.
public enum HTTPReply: Sendable {
    /// Send this response now (the fast path: no thread hop).
    case response(HTTPResponse)
    /// Answer later without blocking the worker thread. The closure runs right away on the worker thread with a
    /// ``HTTPPromise``, must return quickly, and the promise may be completed from any thread. Later pipelined
    /// requests on the same connection wait (answers stay in order).
    case deferred(@Sendable (HTTPPromise) -> Void)
    /// Answer with what `work` returns, run as a Swift task on the connection's event loop (the loop is the
    /// task's executor preference): its child tasks, and the continuations resumed for it, stay on that thread, so
    /// an answer composed from upstream calls costs no thread hop. `work` must not block; a thrown
    /// ``HTTPResponseConvertible`` becomes its response, any other error a logged 500. Later pipelined requests on
    /// the same connection wait.
    case task(@Sendable () async throws -> HTTPReply)
    /// Misbehave on purpose (for mock backends and fault-injection tests).
    indirect case fault(HTTPFault)
}

/// Deliberate connection-level misbehaviour.
public enum HTTPFault: Sendable {
    /// Close with a TCP reset (`SO_LINGER` 0): the client sees `ECONNRESET`.
    case reset
    /// Close the connection without sending any response.
    case closeWithoutResponse
    /// Send the head of `response` announcing the full `Content-Length`, then only `afterBytes` bytes of the
    /// body, then close.
    case truncate(HTTPResponse, afterBytes: Int)
    /// Send `response` (head and body) `chunkSize` bytes at a time every `interval`; the connection then
    /// continues normally.
    case drip(HTTPResponse, chunkSize: Int, interval: Duration)
}

extension HTTPReply {
    /// Convenience: `.response(.text(...))`.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPReply {
        .response(.text(text, status: status))
    }

    /// Convenience: `.response(.json(...))`.
    public static func json(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPReply {
        .response(.json(bytes, status: status))
    }

    /// Convenience: the problem+json response of an ``HTTPResponseError``.
    public static func error(_ error: some HTTPResponseError) -> HTTPReply {
        .response(error.makeResponse())
    }
}

extension HTTPReply {
    /// This reply with `transform` applied to the response it sends: now, when a deferred reply completes with a
    /// response, or inside a truncate or drip fault. Errors and other faults pass through unchanged.
    public func mapResponse(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPReply {
        switch self {
        case .response(let response):
            return .response(transform(response))
        case .deferred(let start):
            return .deferred { promise in
                start(HTTPPromise { result in promise.complete(result.map { $0.mapResponse(transform) }) })
            }
        case .task(let work):
            return .task { try await work().mapResponse(transform) }
        case .fault(.truncate(let response, let bytes)):
            return .fault(.truncate(transform(response), afterBytes: bytes))
        case .fault(.drip(let response, let size, let interval)):
            return .fault(.drip(transform(response), chunkSize: size, interval: interval))
        case .fault:
            return self
        }
    }
}
