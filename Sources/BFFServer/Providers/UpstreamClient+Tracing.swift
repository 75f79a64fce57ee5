import HTTPCore

/// Client spans of upstream calls (docs/operations.md, "Tracing"): one per attempt, kind CLIENT, named by the method,
/// a child of the provider's or handler's span; the attempt sends its own id as the `traceparent` parent.
extension UpstreamClient {
    /// Starts the span of attempt `attempt` (0 for the first) under `parent` and sets `request`'s fields to `fields`
    /// plus the span's `traceparent` and the trace's `tracestate`.
    func clientSpan(
        under parent: Span, request: inout HTTPClientRequest, fields: [(name: String, value: String)], attempt: Int
    )
        -> Span
    {
        var attributes: [SpanAttribute] = [
            .string(SemanticAttribute.httpRequestMethod, request.method),
            .string(SemanticAttribute.urlFull, request.url),
            .string(SemanticAttribute.upstream, configuration.name),
        ]
        if let authority = Self.authority(of: request.url) {
            attributes.append(.string(SemanticAttribute.serverAddress, authority.host))
            if let port = authority.port { attributes.append(.int(SemanticAttribute.serverPort, port)) }
        }
        if attempt > 0 { attributes.append(.int(SemanticAttribute.httpRequestResendCount, attempt)) }
        let span = parent.child(request.method, kind: .client, attributes: attributes)
        var headers = fields
        headers.append(("traceparent", span.traceParent.description))
        if let tracestate = span.traceState { headers.append(("tracestate", tracestate)) }
        request.headers = headers
        return span
    }

    /// Ends an attempt's span: the status it got (4xx and 5xx are errors, `error.type` the status), or the
    /// transfer's failure (`error.type` the upstream error code, `upstream_timeout`, `upstream_unavailable`).
    static func end(_ span: Span, _ result: Result<HTTPClientResponse, HTTPClientError>) {
        switch result {
        case .success(let response) where response.status < 400:
            span.end(attributes: [.int(SemanticAttribute.httpResponseStatusCode, response.status)])
        case .success(let response):
            span.end(
                status: .error("HTTP \(response.status)"),
                attributes: [
                    .int(SemanticAttribute.httpResponseStatusCode, response.status),
                    .string(SemanticAttribute.errorType, String(response.status)),
                ])
        case .failure(let error):
            let code = UpstreamError(error, upstream: "").code
            span.end(status: .error(error.message), attributes: [.string(SemanticAttribute.errorType, code)])
        }
    }

    /// The host and port of an `http(s)://host[:port]/…` URL (the scheme's port when none is written).
    static func authority(of url: String) -> Authority? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard var authority = Authority(String(rest[..<end])) else { return nil }
        if authority.port == nil { authority.port = url.hasPrefix("https") ? 443 : 80 }
        return authority
    }
}
