import Synchronization

/// Completes a deferred reply (``HTTPReply/deferred(_:)``) from any thread. Only the first completion counts.
/// A promise released without being completed answers 500 (and logs it).
public final class HTTPPromise: Sendable {
    private let sink: Mutex<(@Sendable (Result<HTTPReply, any Error>) -> Void)?>

    package init(_ sink: @escaping @Sendable (Result<HTTPReply, any Error>) -> Void) {
        self.sink = Mutex(sink)
    }

    deinit {
        if let sink = sink.withLock({ $0.take() }) {
            sink(.failure(HTTPPromiseError.dropped))
        }
    }

    /// Answers with `response`.
    public func succeed(_ response: HTTPResponse) {
        complete(.success(.response(response)))
    }

    /// Answers with `reply` (a response, a fault, or even another deferral).
    public func complete(with reply: HTTPReply) {
        complete(.success(reply))
    }

    /// Answers with the error's problem+json response, or a generic 500 for other errors.
    public func fail(_ error: any Error) {
        complete(.failure(error))
    }

    /// Whether the promise was already completed.
    public var isCompleted: Bool { sink.withLock { $0 == nil } }

    func complete(_ result: Result<HTTPReply, any Error>) {
        if let sink = sink.withLock({ $0.take() }) {
            sink(result)
        }
    }
}

struct HTTPPromiseError: Error, CustomStringConvertible {
    var description: String
    static let dropped = HTTPPromiseError(description: "HTTPPromise released without being completed")
}

/// Writes a streamed body (``HTTPResponse/Body/stream(_:)``) from any thread.
/// Call ``finish()`` when done; a writer released without finishing aborts the connection.
public final class HTTPBodyWriter: Sendable {
    enum Action: Sendable {
        case write([UInt8])
        case finish
        case abort
    }

    private let sink: Mutex<(@Sendable (Action) -> Void)?>

    init(_ sink: @escaping @Sendable (Action) -> Void) {
        self.sink = Mutex(sink)
    }

    deinit {
        if let sink = sink.withLock({ $0.take() }) { sink(.abort) }
    }

    /// Sends one chunk (empty writes are ignored). No back-pressure: the connection buffers what it cannot
    /// send yet.
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let sink = self.sink.withLock { $0 }
        sink?(.write(bytes))
    }

    /// Ends the body (last chunk); the connection then serves the next request.
    public func finish() {
        if let sink = sink.withLock({ $0.take() }) { sink(.finish) }
    }

    /// Aborts the response by closing the connection (the client sees an incomplete body).
    public func abort() {
        if let sink = sink.withLock({ $0.take() }) { sink(.abort) }
    }
}
