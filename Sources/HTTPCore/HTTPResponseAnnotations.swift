/// What the application says about a response for its access log and metrics, never sent: what the route served
/// (``subject``, a page id), the problem code of an error answer, the time spent waiting for upstreams.
/// A reference on ``HTTPResponse`` (responses are copied along the responder chain: one pointer instead of four
/// fields), immutable, so one instance can be made once and shared by every response that says the same — a page's
/// own, made when the page is loaded.
public final class HTTPResponseAnnotations: Sendable {
    /// What the route served — for a page route, the id of a page the catalog knows. Set only from known names,
    /// never from the URL of something unknown, so metric labels stay bounded.
    public let subject: String?
    /// The stable error code of a problem answer (`page_not_found`).
    public let errorCode: String?
    /// Time the answer spent waiting for upstream services.
    public let upstreamNanoseconds: UInt64

    public init(subject: String? = nil, errorCode: String? = nil, upstreamNanoseconds: UInt64 = 0) {
        self.subject = subject
        self.errorCode = errorCode
        self.upstreamNanoseconds = upstreamNanoseconds
    }
}

/// A traced response's W3C trace id (16 bytes, as two big-endian halves) and span id, as numbers: the access log
/// writes them as hex digits, with no string made per request. Read from the response's observer (the server span,
/// ``HTTPResponseObserver/trace``), not kept in its annotations: a traced response allocates nothing more.
public struct HTTPTraceIDs: Sendable, Hashable {
    public var traceHigh: UInt64
    public var traceLow: UInt64
    public var span: UInt64

    public init(traceHigh: UInt64, traceLow: UInt64, span: UInt64) {
        self.traceHigh = traceHigh
        self.traceLow = traceLow
        self.span = span
    }
}

extension HTTPResponse {
    /// ``HTTPResponseAnnotations/subject`` (setting it makes new annotations).
    public var subject: String? {
        get { annotations?.subject }
        set { annotate(subject: .some(newValue)) }
    }

    /// ``HTTPResponseAnnotations/errorCode`` (setting it makes new annotations).
    public var errorCode: String? {
        get { annotations?.errorCode }
        set { annotate(errorCode: .some(newValue)) }
    }

    /// ``HTTPResponseAnnotations/upstreamNanoseconds`` (setting it makes new annotations).
    public var upstreamNanoseconds: UInt64 {
        get { annotations?.upstreamNanoseconds ?? 0 }
        set { annotate(upstreamNanoseconds: newValue) }
    }

    /// Replaces the given members of ``annotations``, keeping the others.
    private mutating func annotate(
        subject: String?? = nil, errorCode: String?? = nil, upstreamNanoseconds: UInt64? = nil
    ) {
        let old = annotations
        annotations = HTTPResponseAnnotations(
            subject: subject ?? old?.subject, errorCode: errorCode ?? old?.errorCode,
            upstreamNanoseconds: upstreamNanoseconds ?? old?.upstreamNanoseconds ?? 0)
    }
}

extension HTTPAccessLogEntry {
    /// The response's ``HTTPResponseAnnotations/subject`` (a page id).
    public var subject: String? { annotations?.subject }
    /// The response's ``HTTPResponseAnnotations/errorCode`` (a problem code).
    public var errorCode: String? { annotations?.errorCode }
    /// The response's ``HTTPResponseAnnotations/upstreamNanoseconds``.
    public var upstreamNanoseconds: UInt64 { annotations?.upstreamNanoseconds ?? 0 }
}
