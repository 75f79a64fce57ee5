import Foundation
import PageModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``PageLoader`` over `URLSession` (on Linux FoundationNetworking, which runs on libcurl) speaking the
/// contract's routes:
///
/// - `initial`, `refresh`: `GET {base}/v1/pages/{pageID}?{parameters}`; refresh adds `Cache-Control: no-cache`.
/// - `nextPage(postback:)`: `GET {base}/v1/pages/{pageID}/next?postback={percent-encoded postback}`.
/// - `action`: `POST {base}/v1/actions/{name}` with the JSON ``ActionRequest/body``.
///
/// Every request carries a fresh `X-Request-ID` and `Accept-Encoding: gzip` (URLSession inflates gzip bodies).
/// An action carries its ``ActionRequest/idempotencyKey`` as `Idempotency-Key`; when the connection fails before an
/// answer arrives (lost, timed out) the action is sent once more with the same key, so the server answers it once.
/// Non-2xx answers become a ``PageLoadError`` with the problem+json body's readable message.
public final class HTTPPageLoader: PageLoader {
    /// The loader's settings, with documented defaults.
    public struct Configuration: Sendable {
        /// The server's base URL, e.g. `http://127.0.0.1:8080` (a path prefix is kept).
        public var baseURL: URL
        /// Seconds a request may wait for data before failing with `timeout`. Default 30.
        public var timeout: Double
        /// Extra headers sent with every request (e.g. `Authorization`). Default none.
        public var headers: [String: String]
        /// Makes the `X-Request-ID` of each request. Default a random UUID.
        public var makeRequestID: @Sendable () -> String

        public init(
            baseURL: URL, timeout: Double = 30, headers: [String: String] = [:],
            makeRequestID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
        ) {
            self.baseURL = baseURL
            self.timeout = timeout
            self.headers = headers
            self.makeRequestID = makeRequestID
        }
    }

    public let configuration: Configuration
    private let session: URLSession

    public init(configuration: Configuration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.timeout
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        self.session = URLSession(configuration: sessionConfiguration)
    }

    /// A loader for `baseURL` with the default configuration otherwise.
    public convenience init(baseURL: URL, timeout: Double = 30) {
        self.init(configuration: Configuration(baseURL: baseURL, timeout: timeout))
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The HTTP request for `request`: method, URL, headers and body.
    public func urlRequest(for request: PageRequest) -> URLRequest {
        let page = ContractRoute.page.path(["pageID": request.pageID])
        var path: String
        var query: [(String, String)] = []
        var body: [UInt8]?
        switch request.kind {
        case .initial, .refresh:
            path = page
            query = request.parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        case .nextPage(let postback):
            path = ContractRoute.nextPage.path(["pageID": request.pageID])
            query = [("postback", postback)]
        case .action(let action):
            path = ContractRoute.action.path(["name": action.name])
            body = JSONWriter().write(action.body)
        }
        if !query.isEmpty {
            path +=
                "?" + query.map { Self.percentEncoded($0.0) + "=" + Self.percentEncoded($0.1) }.joined(separator: "&")
        }
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var urlRequest = URLRequest(url: URL(string: base + path)!, timeoutInterval: configuration.timeout)
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in configuration.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        urlRequest.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
        urlRequest.setValue(configuration.makeRequestID(), forHTTPHeaderField: "X-Request-ID")
        if request.kind == .refresh { urlRequest.setValue("no-cache", forHTTPHeaderField: "Cache-Control") }
        if case .action(let action) = request.kind, let key = action.idempotencyKey {
            urlRequest.setValue(key, forHTTPHeaderField: "Idempotency-Key")
        }
        if let body {
            urlRequest.httpMethod = "POST"
            urlRequest.httpBody = Data(body)
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else {
            urlRequest.httpMethod = "GET"
        }
        return urlRequest
    }

    public func load(_ request: PageRequest) async throws -> [UInt8] {
        let urlRequest = urlRequest(for: request)
        let (data, response): (Data, URLResponse)
        if case .action(let action) = request.kind, action.idempotencyKey != nil {
            do {
                (data, response) = try await send(urlRequest)
            } catch let error as PageLoadError where error.code == "network_error" || error.code == "timeout" {
                (data, response) = try await send(urlRequest)  // the same Idempotency-Key: answered once
            }
        } else {
            (data, response) = try await send(urlRequest)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let contentType = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
            throw Self.error(status: status, body: data, url: urlRequest.url, contentType: contentType)
        }
        return Array(data)
    }

    /// Runs one data task, cancelling it when the calling task is cancelled.
    private func send(_ urlRequest: URLRequest) async throws -> (Data, URLResponse) {
        let handle = DataTaskHandle()
        let timeout = configuration.timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: Self.error(error, url: urlRequest.url, timeout: timeout))
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(
                            throwing: PageLoadError(code: "network_error", message: "No response from \(urlRequest)"))
                    }
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
        }
    }

    static func error(_ error: any Error, url: URL?, timeout: Double) -> any Error {
        let target = url?.absoluteString ?? "the server"
        guard let urlError = error as? URLError else {
            return PageLoadError(code: "network_error", message: "\(error.localizedDescription) (\(target))")
        }
        switch urlError.code {
        case .cancelled:
            return CancellationError()
        case .timedOut:
            return PageLoadError(code: "timeout", message: "The request to \(target) timed out after \(timeout) s")
        default:
            return PageLoadError(code: "network_error", message: "\(urlError.localizedDescription) (\(target))")
        }
    }

    /// The error of a non-2xx answer: the problem+json body's message when there is one; ``PageLoadError/status``
    /// is the HTTP status (a problem body's own `status` stays in ``PageLoadError/problem``).
    static func error(status: Int, body: Data, url: URL?, contentType: String? = nil) -> PageLoadError {
        var error: PageLoadError
        if let problem = try? JSONDecoder().decode(ProblemDetails.self, from: body) {
            error = PageLoadError(problem: problem)
            error.status = status
        } else {
            let reason = HTTPURLResponse.localizedString(forStatusCode: status)
            error = PageLoadError(
                code: "http_error", message: "HTTP \(status) \(reason) from \(url?.absoluteString ?? "the server")",
                status: status)
        }
        error.contentType = contentType
        return error
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters, so `/`, `+`, `=`, `&` survive a trip
    /// through a path segment or a query value.
    static func percentEncoded(_ text: String) -> String { ContractRoute.percentEncodedSegment(text) }
}

/// The data task of one request, so the cancellation handler can reach it.
private final class DataTaskHandle: Sendable {
    private struct State {
        // URLSessionDataTask is not Sendable on Linux; it is only touched under the lock.
        nonisolated(unsafe) var task: URLSessionDataTask?
        var isCancelled = false
    }

    private let state = Locked(State())

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.isCancelled
        }
        if cancelled { task.cancel() } else { task.resume() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.isCancelled = true
            return state.task
        }
        task?.cancel()
    }
}
