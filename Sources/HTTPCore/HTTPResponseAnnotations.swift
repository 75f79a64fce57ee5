/// What the application says about a response for its access log and metrics, never sent: what the route served
/// (``subject``, a page id), the problem code of an error answer, the time spent waiting for upstreams, the trace.
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
    /// The W3C `traceparent` of the span that answered, when the request is traced.
    public let traceParent: String?

    public init(
        subject: String? = nil, errorCode: String? = nil, upstreamNanoseconds: UInt64 = 0, traceParent: String? = nil
    ) {
        self.subject = subject
        self.errorCode = errorCode
        self.upstreamNanoseconds = upstreamNanoseconds
        self.traceParent = traceParent
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

    /// ``HTTPResponseAnnotations/traceParent`` (setting it makes new annotations).
    public var traceParent: String? {
        get { annotations?.traceParent }
        set { annotate(traceParent: .some(newValue)) }
    }

    /// Replaces the given members of ``annotations``, keeping the others.
    private mutating func annotate(
        subject: String?? = nil, errorCode: String?? = nil, upstreamNanoseconds: UInt64? = nil,
        traceParent: String?? = nil
    ) {
        let old = annotations
        annotations = HTTPResponseAnnotations(
            subject: subject ?? old?.subject, errorCode: errorCode ?? old?.errorCode,
            upstreamNanoseconds: upstreamNanoseconds ?? old?.upstreamNanoseconds ?? 0,
            traceParent: traceParent ?? old?.traceParent)
    }
}

extension HTTPAccessLogEntry {
    /// The response's ``HTTPResponseAnnotations/subject`` (a page id).
    public var subject: String? { annotations?.subject }
    /// The response's ``HTTPResponseAnnotations/errorCode`` (a problem code).
    public var errorCode: String? { annotations?.errorCode }
    /// The response's ``HTTPResponseAnnotations/upstreamNanoseconds``.
    public var upstreamNanoseconds: UInt64 { annotations?.upstreamNanoseconds ?? 0 }
    /// The response's ``HTTPResponseAnnotations/traceParent``.
    public var traceParent: String? { annotations?.traceParent }
}
