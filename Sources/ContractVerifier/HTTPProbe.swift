import Foundation
import PageModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Raw HTTP for the protocol checks the crawl's loader hides: status, headers, content types, gzip, ETag/304,
/// replayed and tampered postbacks. URLSession (libcurl) inflates gzip bodies and keeps the `Content-Encoding`
/// header, so a check sees both the decoded body and whether it was compressed.
final class HTTPProbe: Sendable {
    /// One response: status, the headers the checks read, and the (inflated) body.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        /// The `X-Request-ID` the request carried: a fresh one per request (docs/contract.md § 14).
        var requestID = ""

        /// True when the answer carries the request's `X-Request-ID`.
        var echoesRequestID: Bool { header("X-Request-ID") == requestID }

        /// The header `name`, case-insensitively.
        func header(_ name: String) -> String? {
            let lowered = name.lowercased()
            return headers.first { $0.key.lowercased() == lowered }?.value
        }

        /// The media type of `Content-Type` without parameters, lower-cased (`application/json`).
        var mediaType: String? {
            header("Content-Type").map {
                $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            }
        }
    }

    /// A transport failure (no HTTP response at all).
    struct TransportError: Error, CustomStringConvertible {
        var description: String
        /// True when nothing answered at all (connection refused, unknown host): the server is not there. Any
        /// other transport failure (a reset, a malformed or undecodable answer, a timeout) is the fault of a
        /// server that listens.
        var unreachable = false
    }

    /// The `URLError` codes meaning that no server listens at the address.
    static let unreachableCodes: Set<URLError.Code> = [
        .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .unsupportedURL,
    ]

    private let session: URLSession
    private let timeout: Double
    private let headers: [String: String]

    /// - Parameter headers: sent with every request (e.g. `Authorization`).
    init(timeout: Double, headers: [String: String] = [:]) {
        self.timeout = timeout
        self.headers = headers
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` with `headers` set on top of its own, and without the fields named in `removing` (e.g. the
    /// crawl's `X-Flow-Client`, to see the unresolved page, or `Accept-Language`, to see the default locale).
    func send(_ request: URLRequest, headers: [String: String] = [:], removing: [String] = [])
        async throws(TransportError) -> Response
    {
        var request = request
        request.timeoutInterval = timeout
        for (name, value) in self.headers { request.setValue(value, forHTTPHeaderField: name) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        // A blank value makes libcurl send no such field at all, also for the `Accept-Language` URLSession adds
        // on its own (nil would only remove the request's value and let the default in).
        for name in removing { request.setValue(" ", forHTTPHeaderField: name) }
        // A fresh id per probe, so each answer's echo can be told apart (a configured header still wins).
        let requestID = headers["X-Request-ID"] ?? self.headers["X-Request-ID"] ?? "verify-" + UUID().uuidString
        request.setValue(requestID, forHTTPHeaderField: "X-Request-ID")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            let unreachable = (error as? URLError).map { Self.unreachableCodes.contains($0.code) } ?? false
            throw TransportError(
                description: "\(error.localizedDescription) (\(Self.describe(request)))", unreachable: unreachable)
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(description: "no HTTP response (\(Self.describe(request)))")
        }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return Response(status: http.statusCode, headers: fields, body: Array(data), requestID: requestID)
    }

    /// `METHOD /path?query`.
    static func describe(_ request: URLRequest) -> String {
        let method = request.httpMethod ?? "GET"
        guard let url = request.url else { return method }
        var target = url.path.isEmpty ? "/" : url.path
        if let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let query = components.percentEncodedQuery
        {
            target = components.percentEncodedPath + "?" + query
        }
        return method + " " + target
    }
}
