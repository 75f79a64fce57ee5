import HTTPCore
import PageModel

/// Settings for one upstream service a page provider or action handler calls.
public struct UpstreamConfiguration: Sendable, Hashable {
    /// Name used in metrics, degradations and errors (`catalog`, `reviews`).
    public var name: String
    /// Base URL paths are appended to, e.g. `http://reviews.internal:8080` (`http` or `https`).
    public var baseURL: String
    /// Time one attempt may take, connect to last byte. Default 1 s.
    public var timeout: Duration = .seconds(1)
    /// Extra attempts for idempotent requests after a transport error, a timeout, 502, 503 or 504. Default 1.
    public var retries: Int = 1
    /// Wait before the first retry, doubled for each further one. Default 50 ms.
    public var backoff: Duration = .milliseconds(50)
    /// Requests in flight to this upstream at once; more wait their turn. Default 16.
    public var maximumConcurrentRequests: Int = 16
    /// Time the whole call may take, every attempt and backoff included; each attempt gets what is left of it
    /// when that is less than ``timeout``. `nil`: attempts × ``timeout`` plus the backoffs. Default `nil`.
    public var callTimeout: Duration?

    public init(
        name: String, baseURL: String, timeout: Duration = .seconds(1), retries: Int = 1,
        backoff: Duration = .milliseconds(50), maximumConcurrentRequests: Int = 16, callTimeout: Duration? = nil
    ) {
        self.name = name
        self.baseURL = baseURL
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.maximumConcurrentRequests = maximumConcurrentRequests
        self.callTimeout = callTimeout
    }
}

/// An upstream's answer.
public struct UpstreamResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    /// The answer's header fields as received, read on demand (most callers read one field or none).
    private var fields: HTTPClientResponse

    public init(status: Int, body: [UInt8], headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        fields = HTTPClientResponse(status: status, headers: headers.map { ($0.key, $0.value) })
    }

    init(_ response: HTTPClientResponse) {
        status = response.status
        body = response.body
        fields = response
    }

    /// Header fields, names lowercased (the last value of a repeated field).
    public var headers: [String: String] {
        get {
            var headers: [String: String] = [:]
            for field in fields.headers { headers[field.name.lowercased()] = field.value }
            return headers
        }
        set { fields.headers = newValue.map { ($0.key, $0.value) } }
    }

    /// The first value of the field `name` (case-insensitive).
    public func header(_ name: String) -> String? { fields.header(name) }

    /// Every header field as received, in order (repeated fields repeated).
    public var headerFields: [(name: String, value: String)] { fields.headers }
}

/// A failed upstream call: `upstream_timeout`, `upstream_unavailable` (no connection, a connection lost or an
/// answer cut short, an oversized or undecodable answer), `upstream_status` (a non-2xx answer) or
/// `upstream_invalid_json`.
public struct UpstreamError: Error, Sendable, Hashable, CustomStringConvertible {
    public var upstream: String
    public var code: String
    public var message: String
    /// The upstream's status for `upstream_status`.
    public var status: Int?

    public init(upstream: String, code: String, message: String, status: Int? = nil) {
        self.upstream = upstream
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { "\(upstream): \(message)" }
}

/// A client for one upstream on HTTPCore's ``HTTPClient`` (libcurl's multi interface on its own event loop; no
/// URLSession): per-attempt and per-call timeouts, bounded retries with exponential backoff for idempotent
/// methods, a concurrency limit held on the client's loop, `X-Request-ID` and W3C trace context propagation, and
/// metrics in an ``UpstreamMetrics`` sink. Bodies are parsed with PageModel's ``JSONParser``.
public final class UpstreamClient: Sendable {
    public let configuration: UpstreamConfiguration
    let metrics: UpstreamMetrics
    let client: HTTPClient
    let limit: HTTPClient.ConcurrencyLimit
    /// `baseURL` without trailing slashes.
    private let base: String

    /// The configured `baseURL` without trailing slashes, as request targets are appended to it.
    public var baseURL: String { base }

    /// - Parameters:
    ///   - metrics: where call counts and durations go; pass `application.providers.upstreamMetrics` so they are
    ///     served at `/metrics`.
    ///   - client: the HTTP client (event loop, connection pool, DNS cache) the calls go through; default the
    ///     process's shared one.
    public init(
        _ configuration: UpstreamConfiguration, metrics: UpstreamMetrics = UpstreamMetrics(),
        client: HTTPClient = .shared
    ) {
        self.configuration = configuration
        self.metrics = metrics
        self.client = client
        self.limit = HTTPClient.ConcurrencyLimit(max(1, configuration.maximumConcurrentRequests))
        var base = configuration.baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
    }

    /// `GET baseURL + path` with `query`.
    public func get(
        _ path: String, query: [String: String] = [:], requestID: String? = nil, traceContext: TraceContext? = nil
    ) async throws(UpstreamError) -> UpstreamResponse {
        try await send("GET", path, query: query, requestID: requestID, traceContext: traceContext)
    }

    /// `GET` and parse the body as JSON (2xx only).
    public func getJSON(
        _ path: String, query: [String: String] = [:], requestID: String? = nil, traceContext: TraceContext? = nil
    ) async throws(UpstreamError) -> JSONValue {
        let response = try await get(path, query: query, requestID: requestID, traceContext: traceContext)
        do { return try JSONParser().parse(response.body) } catch {
            throw UpstreamError(
                upstream: configuration.name, code: "upstream_invalid_json", message: "invalid JSON: \(error)")
        }
    }

    /// Sends a request; retries only idempotent methods (`GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`).
    /// - Throws: ``UpstreamError``; a non-2xx final answer is `upstream_status`.
    public func send(
        _ method: String, _ path: String, query: [String: String] = [:], body: [UInt8]? = nil,
        headers: [String: String] = [:], requestID: String? = nil, traceContext: TraceContext? = nil
    ) async throws(UpstreamError) -> UpstreamResponse {
        try await exchange(
            method, url: url(path, query: query), body: body,
            fields: headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }, requestID: requestID,
            traceContext: traceContext, passesStatus: false)
    }

    /// Sends `method` to `baseURL + target` (an origin-form request target, `/path?query`, sent as it is) with
    /// `fields` in order, and returns the upstream's answer whatever its status: the proxy's call (Proxy/). An
    /// idempotent method is retried after a transport error only, within ``UpstreamConfiguration/callTimeout``; an
    /// answered 5xx is returned as it came.
    /// - Throws: ``UpstreamError`` when no answer came (`upstream_timeout`, `upstream_unavailable`).
    func forward(
        _ method: String, target: String, body: [UInt8]?, fields: [(name: String, value: String)],
        requestID: String?, traceContext: TraceContext?
    ) async throws(UpstreamError) -> UpstreamResponse {
        precondition(target.hasPrefix("/"), "an origin-form request target")
        return try await exchange(
            method, url: base + target, body: body, fields: fields, requestID: requestID, traceContext: traceContext,
            passesStatus: true)
    }

    /// One call, its attempts and backoffs; with `passesStatus`, a non-2xx answer is returned instead of thrown.
    private func exchange(
        _ method: String, url: String, body: [UInt8]?, fields: [(name: String, value: String)], requestID: String?,
        traceContext: TraceContext?, passesStatus: Bool
    ) async throws(UpstreamError) -> UpstreamResponse {
        var fields = fields
        // The calling request's upstream time (the access log's upstreamMs), read before the first suspension.
        let timer = UpstreamTimer.current
        if let requestID { fields.append(("X-Request-ID", requestID)) }
        // A traced call sends each attempt's own client span as the parent (below); otherwise the context as given.
        let parentSpan = traceContext?.span
        if let traceContext, parentSpan == nil {
            fields.append(("traceparent", traceContext.traceparent))
            if let tracestate = traceContext.tracestate { fields.append(("tracestate", tracestate)) }
        }
        var request = HTTPClientRequest(
            method: method, url: url, headers: fields, body: body, timeout: configuration.timeout,
            limit: limit)
        let idempotent = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method)
        let attempts = idempotent ? 1 + max(0, configuration.retries) : 1
        let callDeadline = configuration.callTimeout.map { ContinuousClock.now + $0 }
        var delay = configuration.backoff
        var lastError = UpstreamError(upstream: configuration.name, code: "upstream_unavailable", message: "no attempt")
        for attempt in 0..<attempts {
            if attempt > 0 {
                metrics.retried(configuration.name)
                try? await Task.sleep(for: delay)
                delay *= 2
            }
            if Task.isCancelled { break }
            if let callDeadline {
                let left = callDeadline - ContinuousClock.now
                guard left > .zero else { break }
                request.timeout = min(configuration.timeout, left)
            }
            let span = parentSpan.map { clientSpan(under: $0, request: &request, fields: fields, attempt: attempt) }
            let start = ContinuousClock.now
            let result: Result<HTTPClientResponse, HTTPClientError>
            do { result = .success(try await client.execute(request)) } catch { result = .failure(error) }
            let elapsed = (ContinuousClock.now - start).seconds
            timer?.add(seconds: elapsed)
            if let span { Self.end(span, result) }
            switch result {
            case .success(let response) where (200..<300).contains(response.status):
                metrics.record(configuration.name, outcome: "ok", seconds: elapsed)
                return UpstreamResponse(response)
            case .success(let response):
                metrics.record(configuration.name, outcome: "status_\(response.status)", seconds: elapsed)
                lastError = UpstreamError(
                    upstream: configuration.name, code: "upstream_status",
                    message: "answered \(response.status)", status: response.status)
                // The proxy passes every answer on as it came: the app's own retry of a 503 is what is under test.
                if passesStatus { return UpstreamResponse(response) }
                guard [502, 503, 504].contains(response.status) else { throw lastError }
            case .failure(let error):
                let upstreamError = UpstreamError(error, upstream: configuration.name)
                metrics.record(configuration.name, outcome: upstreamError.code, seconds: elapsed)
                lastError = upstreamError
                // A refused URL or a shut-down client does not get better on a second try.
                if error.kind == .invalidURL || error.kind == .shutdown || error.kind == .cancelled { throw lastError }
            }
        }
        throw lastError
    }

    /// `base + path`, with `query` sorted by name and percent-encoded (RFC 3986 unreserved characters stay).
    func url(_ path: String, query: [String: String]) -> String {
        var url = base
        if !path.hasPrefix("/") { url += "/" }
        url += Self.percentEncoded(path, keeping: Self.pathCharacters)
        guard !query.isEmpty else { return url }
        var separator = url.utf8.contains(UInt8(ascii: "?")) ? "&" : "?"
        for name in query.keys.sorted() {
            url +=
                separator + Self.percentEncoded(name, keeping: Self.unreserved) + "="
                + Self.percentEncoded(query[name]!, keeping: Self.unreserved)
            separator = "&"
        }
        return url
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    private static func unreserved(_ byte: UInt8) -> Bool { isUnreserved(byte) }

    /// What a path keeps as it is: unreserved, sub-delims, `:`, `@`, `/`, and `%` (already encoded) and `?`
    /// (a query written into the path).
    private static func pathCharacters(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || "!$&'()*+,;=:@/%?".utf8.contains(byte)
    }

    private static func percentEncoded(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
        guard !text.utf8.allSatisfy(keep) else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if keep(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension UpstreamError {
    /// The upstream error of a failed transfer: a timeout is `upstream_timeout`; everything else leaves the
    /// caller without an answer, `upstream_unavailable`, with libcurl's words for what happened.
    init(_ error: HTTPClientError, upstream: String) {
        switch error.kind {
        case .timeout:
            self.init(upstream: upstream, code: "upstream_timeout", message: error.message)
        case .connectionLost:
            self.init(upstream: upstream, code: "upstream_unavailable", message: "connection lost: \(error.message)")
        case .truncated:
            self.init(upstream: upstream, code: "upstream_unavailable", message: "answer cut short: \(error.message)")
        default:
            self.init(upstream: upstream, code: "upstream_unavailable", message: error.message)
        }
    }
}
