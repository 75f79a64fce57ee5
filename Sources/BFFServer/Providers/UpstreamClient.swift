import Foundation
import PageModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Settings for one upstream service a page provider calls.
public struct UpstreamConfiguration: Sendable, Hashable {
    /// Name used in metrics, degradations and errors (`catalog`, `reviews`).
    public var name: String
    /// Base URL paths are appended to, e.g. `http://reviews.internal:8080`.
    public var baseURL: String
    /// Time one attempt may take, connect to last byte. Default 1 s.
    public var timeout: Duration = .seconds(1)
    /// Extra attempts for idempotent requests after a transport error, a timeout, 502, 503 or 504. Default 1.
    public var retries: Int = 1
    /// Wait before the first retry, doubled for each further one. Default 50 ms.
    public var backoff: Duration = .milliseconds(50)
    /// Requests in flight to this upstream at once; more wait their turn. Default 16.
    public var maximumConcurrentRequests: Int = 16

    public init(
        name: String, baseURL: String, timeout: Duration = .seconds(1), retries: Int = 1,
        backoff: Duration = .milliseconds(50), maximumConcurrentRequests: Int = 16
    ) {
        self.name = name
        self.baseURL = baseURL
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.maximumConcurrentRequests = maximumConcurrentRequests
    }
}

/// An upstream's answer.
public struct UpstreamResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    /// Header fields, names lowercased.
    public var headers: [String: String]
}

/// A failed upstream call: `upstream_timeout`, `upstream_unavailable` (transport error), `upstream_status`
/// (a non-2xx answer) or `upstream_invalid_json`.
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

/// An HTTP client for one upstream, on URLSession (FoundationNetworking / libcurl on Linux): per-attempt timeout,
/// bounded retries with exponential backoff for idempotent methods, a concurrency limit, `X-Request-ID`
/// propagation, and metrics in an ``UpstreamMetrics`` sink.
public final class UpstreamClient: Sendable {
    public let configuration: UpstreamConfiguration
    let metrics: UpstreamMetrics
    let session: URLSession
    let limiter: AsyncLimiter

    /// - Parameters:
    ///   - metrics: where call counts and durations go; pass `application.providers.upstreamMetrics` so they are
    ///     served at `/metrics`.
    public init(_ configuration: UpstreamConfiguration, metrics: UpstreamMetrics = UpstreamMetrics()) {
        self.configuration = configuration
        self.metrics = metrics
        let session = URLSessionConfiguration.ephemeral
        session.timeoutIntervalForRequest = configuration.timeout.seconds
        session.httpMaximumConnectionsPerHost = max(1, configuration.maximumConcurrentRequests)
        session.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.session = URLSession(configuration: session)
        self.limiter = AsyncLimiter(limit: max(1, configuration.maximumConcurrentRequests))
    }

    deinit { session.finishTasksAndInvalidate() }

    /// `GET baseURL + path` with `query`.
    public func get(_ path: String, query: [String: String] = [:], requestID: String? = nil)
        async throws(UpstreamError) -> UpstreamResponse
    {
        try await send("GET", path, query: query, requestID: requestID)
    }

    /// `GET` and parse the body as JSON (2xx only).
    public func getJSON(_ path: String, query: [String: String] = [:], requestID: String? = nil)
        async throws(UpstreamError) -> JSONValue
    {
        let response = try await get(path, query: query, requestID: requestID)
        do { return try JSONParser().parse(response.body) } catch {
            throw UpstreamError(
                upstream: configuration.name, code: "upstream_invalid_json", message: "invalid JSON: \(error)")
        }
    }

    /// Sends a request; retries only idempotent methods (`GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`).
    /// - Throws: ``UpstreamError``; a non-2xx final answer is `upstream_status`.
    public func send(
        _ method: String, _ path: String, query: [String: String] = [:], body: [UInt8]? = nil,
        headers: [String: String] = [:], requestID: String? = nil
    ) async throws(UpstreamError) -> UpstreamResponse {
        guard let url = url(path, query: query) else {
            throw UpstreamError(upstream: configuration.name, code: "upstream_unavailable", message: "bad URL \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = configuration.timeout.seconds
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let requestID { request.setValue(requestID, forHTTPHeaderField: "X-Request-ID") }
        if let body { request.httpBody = Data(body) }
        let idempotent = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method)
        let attempts = idempotent ? 1 + max(0, configuration.retries) : 1
        var delay = configuration.backoff
        var lastError = UpstreamError(upstream: configuration.name, code: "upstream_unavailable", message: "no attempt")
        for attempt in 0..<attempts {
            if attempt > 0 {
                metrics.retried(configuration.name)
                try? await Task.sleep(for: delay)
                delay *= 2
            }
            if Task.isCancelled { break }
            let start = ContinuousClock.now
            let result = await attemptOnce(request)
            let elapsed = ContinuousClock.now - start
            switch result {
            case .success(let response) where (200..<300).contains(response.status):
                metrics.record(configuration.name, outcome: "ok", seconds: elapsed.seconds)
                return response
            case .success(let response):
                metrics.record(configuration.name, outcome: "status_\(response.status)", seconds: elapsed.seconds)
                lastError = UpstreamError(
                    upstream: configuration.name, code: "upstream_status",
                    message: "answered \(response.status)", status: response.status)
                guard [502, 503, 504].contains(response.status) else { throw lastError }
            case .failure(let error):
                metrics.record(configuration.name, outcome: error.code, seconds: elapsed.seconds)
                lastError = error
            }
        }
        throw lastError
    }

    func url(_ path: String, query: [String: String]) -> URL? {
        var base = configuration.baseURL
        while base.hasSuffix("/") { base.removeLast() }
        guard var components = URLComponents(string: base + (path.hasPrefix("/") ? path : "/" + path)) else {
            return nil
        }
        if !query.isEmpty {
            components.queryItems = query.keys.sorted().map { URLQueryItem(name: $0, value: query[$0]) }
        }
        return components.url
    }

    /// One attempt under the concurrency limit and the deadline.
    func attemptOnce(_ request: URLRequest) async -> Result<UpstreamResponse, UpstreamError> {
        await limiter.acquire()
        let name = configuration.name
        let timeout = configuration.timeout
        let session = session
        let result: Result<UpstreamResponse, UpstreamError>
        do {
            let timedOut: @Sendable () -> any Error = {
                UpstreamError(
                    upstream: name, code: "upstream_timeout", message: "no answer within \(timeout.seconds) s")
            }
            result = .success(
                try await withDeadline(timeout, onTimeout: timedOut) {
                    try await Self.data(session, request, name: name, timeout: timeout)
                })
        } catch let error as UpstreamError {
            result = .failure(error)
        } catch {
            result = .failure(UpstreamError(upstream: name, code: "upstream_unavailable", message: "\(error)"))
        }
        await limiter.release()
        return result
    }

    /// `error`'s description without the elapsed time libcurl puts in it ("Failed to connect to … after 0 ms"):
    /// the text ends up in a degraded page's `degradations`, whose bytes (and ETag) must not change from one
    /// request to the next while the upstream stays down.
    static func stableDescription(of error: any Error) -> String {
        error.localizedDescription.replacingOccurrences(
            of: #" after [0-9]+ ms"#, with: "", options: .regularExpression)
    }

    static func data(_ session: URLSession, _ request: URLRequest, name: String, timeout: Duration) async throws
        -> UpstreamResponse
    {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<UpstreamResponse, any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        let nsError = error as NSError
                        let timedOut = nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorTimedOut
                        continuation.resume(
                            throwing: UpstreamError(
                                upstream: name, code: timedOut ? "upstream_timeout" : "upstream_unavailable",
                                message: timedOut
                                    ? "no answer within \(timeout.seconds) s" : stableDescription(of: error)))
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        continuation.resume(
                            throwing: UpstreamError(
                                upstream: name, code: "upstream_unavailable", message: "not an HTTP response"))
                        return
                    }
                    var headers: [String: String] = [:]
                    for (key, value) in http.allHeaderFields {
                        if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
                    }
                    continuation.resume(
                        returning: UpstreamResponse(
                            status: http.statusCode, body: Array(data ?? Data()), headers: headers))
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Holds a URLSessionTask for cancellation from another thread.
final class TaskBox: @unchecked Sendable {
    // Guarded by `lock`; URLSessionTask is not Sendable but `cancel()` is thread-safe.
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    func set(_ task: URLSessionTask) {
        lock.lock()
        self.task = task
        let cancel = cancelled
        lock.unlock()
        if cancel { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}

/// A counting semaphore for async code: at most `limit` holders; others wait in FIFO order.
actor AsyncLimiter {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { available = limit }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
