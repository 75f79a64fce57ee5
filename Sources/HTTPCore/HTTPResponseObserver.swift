/// What wants to know what the server wrote for a response (``HTTPResponse/observer``): told once, when the
/// response is queued, with the access entry HTTPCore made for it. A class: a response carries one reference (no
/// closure context is allocated for an object that is its own observer, such as a trace's server span).
public protocol HTTPResponseObserver: AnyObject, Sendable {
    /// The response went out as `entry` says (status, bytes, encoding, duration).
    func responseSent(_ entry: HTTPAccessLogEntry)
    /// The ids of the span that answered, when the request is traced: the access log writes them
    /// (``HTTPAccessLogEntry/trace``). Default `nil`.
    var trace: HTTPTraceIDs? { get }
}

extension HTTPResponseObserver {
    public var trace: HTTPTraceIDs? { nil }
}

/// Two observers of one response, told in order; the trace is the second's, or else the first's.
public final class HTTPResponseObservers: HTTPResponseObserver {
    let first: any HTTPResponseObserver
    let second: any HTTPResponseObserver

    public init(_ first: any HTTPResponseObserver, then second: any HTTPResponseObserver) {
        self.first = first
        self.second = second
    }

    public func responseSent(_ entry: HTTPAccessLogEntry) {
        first.responseSent(entry)
        second.responseSent(entry)
    }

    public var trace: HTTPTraceIDs? { second.trace ?? first.trace }
}

/// A closure as an observer (``HTTPResponse/onSent``).
final class HTTPResponseClosureObserver: HTTPResponseObserver {
    let closure: @Sendable (HTTPAccessLogEntry) -> Void

    init(_ closure: @escaping @Sendable (HTTPAccessLogEntry) -> Void) { self.closure = closure }

    func responseSent(_ entry: HTTPAccessLogEntry) { closure(entry) }
}

extension HTTPResponse {
    /// A closure told what the server wrote for this response (``observer``): setting it replaces the observer.
    public var onSent: (@Sendable (HTTPAccessLogEntry) -> Void)? {
        get {
            guard let observer else { return nil }
            if let closure = observer as? HTTPResponseClosureObserver { return closure.closure }
            return { observer.responseSent($0) }
        }
        set { observer = newValue.map(HTTPResponseClosureObserver.init) }
    }
}
