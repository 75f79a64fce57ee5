/// Answers requests. Called on an event-loop (worker) thread: return quickly, never block. Use
/// ``HTTPReply/deferred(_:)`` for anything slow.
///
/// A thrown ``HTTPResponseConvertible`` (such as ``HTTPResponseError``) becomes its response; any other error is logged through the
/// server's ``HTTPLogSink`` and answered with a generic 500.
///
/// The request is `consuming`: the server hands it over (a responder that sets fields on it, as ``Router`` does
/// with ``HTTPRequest/pathParameters``, does so without copying it).
public protocol HTTPResponder: Sendable {
    func respond(to request: consuming HTTPRequest) throws -> HTTPReply
}

/// An ``HTTPResponder`` from a closure.
public struct HTTPHandlerResponder: HTTPResponder {
    public let handler: @Sendable (HTTPRequest) throws -> HTTPReply

    public init(_ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPReply) {
        self.handler = handler
    }

    public func respond(to request: consuming HTTPRequest) throws -> HTTPReply {
        try handler(request)
    }
}
