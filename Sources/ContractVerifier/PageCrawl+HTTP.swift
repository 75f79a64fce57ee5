import Foundation
import PageModel
import PageStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PageCrawl {
    /// Bodies at least this large must be gzipped when the client asks for gzip.
    static let gzipThreshold = 1024

    /// Raw HTTP checks of the first load: `Content-Type`, gzip negotiation, and `ETag` / `If-None-Match`.
    func checkHTTP() async {
        begin("http")
        let urlRequest = loader.http.urlRequest(for: initialRequest)
        let requestText = loader.describe(initialRequest)
        let gzip: HTTPProbe.Response
        let identity: HTTPProbe.Response
        do {
            gzip = try await probe.send(urlRequest, headers: ["Accept-Encoding": "gzip"])
            identity = try await probe.send(urlRequest, headers: ["Accept-Encoding": "identity"])
        } catch {
            record(ViolationCode.pageFailed, "http", request: requestText, message: "\(error)")
            return
        }
        guard gzip.status == 200, identity.status == 200 else {
            record(
                ViolationCode.pageFailed, "http", request: requestText,
                message: "the page answered \(gzip.status) (gzip) and \(identity.status) (identity)",
                expected: "200", actual: "\(gzip.status), \(identity.status)")
            return
        }
        let degradations = Degradation.list(inEnvelope: identity.body)
        report.degradations = degradations.map { [$0.code, $0.widgetID ?? $0.sectionID ?? ""].joined(separator: " ") }
        await checkContentLoss(degradations, urlRequest: urlRequest, request: requestText)
        firstAnswer = identity
        checkRequestID(gzip, check: "http", request: requestText)
        checkContentType(gzip, expected: "application/json", check: "http", request: requestText)
        checkGzip(gzip: gzip, identity: identity, request: requestText)
        await checkETag(of: gzip, urlRequest: urlRequest, encoding: "gzip", request: requestText)
        await checkVariants(identity: identity, gzip: gzip, urlRequest: urlRequest)
    }

    func checkGzip(gzip: HTTPProbe.Response, identity: HTTPProbe.Response, request: String) {
        let gzipped = gzip.header("Content-Encoding")?.lowercased().contains("gzip") ?? false
        if !gzipped, identity.body.count >= Self.gzipThreshold {
            record(
                ViolationCode.gzipNotHonoured, "http", request: request + " (Accept-Encoding: gzip)",
                message: "a \(identity.body.count)-byte body was sent uncompressed to a client that asked for gzip",
                expected: "Content-Encoding: gzip", actual: gzip.header("Content-Encoding") ?? "(absent)")
        }
        if identity.header("Content-Encoding")?.lowercased().contains("gzip") ?? false {
            record(
                ViolationCode.gzipNotHonoured, "http", request: request + " (Accept-Encoding: identity)",
                message: "the body was gzipped for a client that asked for identity",
                expected: "no Content-Encoding", actual: identity.header("Content-Encoding"))
        }
        guard gzip.body != identity.body else { return }
        // Bodies may differ only by their cursors (a server may mint a new one per request).
        let compressed = try? decoder.decodePage(gzip.body).value.withoutPostbacks
        let plain = try? decoder.decodePage(identity.body).value.withoutPostbacks
        guard let compressed, let plain, compressed != plain else {
            if compressed == nil {
                record(
                    ViolationCode.gzipNotHonoured, "http", request: request + " (Accept-Encoding: gzip)",
                    message: "the gzip variant does not decode to a page")
            }
            return
        }
        let difference = JSONDiff.differences(expected: plain.json, actual: compressed.json).first
        record(
            ViolationCode.gzipNotHonoured, "http", request: request + " (Accept-Encoding: gzip)",
            path: JSONPointer(string: "/page" + (difference?.path.string ?? "")),
            message: "the gzip variant holds another document than the identity variant",
            expected: difference?.expected, actual: difference?.actual)
    }

    /// A response with an `ETag` must answer `If-None-Match` with that tag by 304 (no body, same tag), unless
    /// the content changed meanwhile (a 200 with another tag), and must not answer a foreign tag with 304.
    func checkETag(of response: HTTPProbe.Response, urlRequest: URLRequest, encoding: String, request: String) async {
        guard let etag = response.header("ETag") else { return }
        let matching: HTTPProbe.Response
        let foreign: HTTPProbe.Response
        do {
            matching = try await probe.send(urlRequest, headers: ["Accept-Encoding": encoding, "If-None-Match": etag])
            foreign = try await probe.send(
                urlRequest, headers: ["Accept-Encoding": encoding, "If-None-Match": "\"flow-bff-verify-no-match\""])
        } catch {
            record(ViolationCode.etagInconsistent, "http", request: request, message: "\(error)")
            return
        }
        let conditional = request + " (If-None-Match: \(etag))"
        switch matching.status {
        case 304:
            if !matching.body.isEmpty {
                record(
                    ViolationCode.etagInconsistent, "http", request: conditional,
                    message: "a 304 answer carries a \(matching.body.count)-byte body")
            }
            if let tag = matching.header("ETag"), tag != etag {
                record(
                    ViolationCode.etagInconsistent, "http", request: conditional,
                    message: "the 304 answer names another ETag", expected: etag, actual: tag)
            }
        case 200 where matching.header("ETag") == etag:
            record(
                ViolationCode.etagInconsistent, "http", request: conditional,
                message: "If-None-Match with the current ETag was answered 200 with the same ETag instead of 304",
                expected: "304", actual: "200")
        case 200:
            break  // the content changed between the two requests: a new tag, a full body
        default:
            record(
                ViolationCode.etagInconsistent, "http", request: conditional,
                message: "If-None-Match with the current ETag was answered \(matching.status)", expected: "304",
                actual: String(matching.status))
        }
        if foreign.status == 304 {
            record(
                ViolationCode.etagInconsistent, "http", request: request + " (If-None-Match: another tag)",
                message: "If-None-Match with a tag the server never sent was answered 304", expected: "200",
                actual: "304")
        }
    }

    /// The media type of `response` must be `expected`.
    func checkContentType(_ response: HTTPProbe.Response, expected: String, check: String, request: String) {
        let mediaType = response.mediaType
        guard mediaType != expected else { return }
        record(
            ViolationCode.wrongContentType, check, request: request,
            message: "a \(response.status) answer is \(mediaType ?? "without Content-Type")",
            expected: expected, actual: response.header("Content-Type") ?? "(absent)")
    }

    /// An answer must carry the request's `X-Request-ID` (docs/contract.md § 14).
    func checkRequestID(_ response: HTTPProbe.Response, check: String, request: String) {
        guard !response.echoesRequestID else { return }
        record(
            ViolationCode.requestIDNotEchoed, check, request: request,
            message: "the answer does not carry the request's X-Request-ID", expected: response.requestID,
            actual: response.header("X-Request-ID") ?? "(absent)")
    }

    /// An error answer must be a 4xx `application/problem+json` whose body's `status` matches (and, when given,
    /// whose `code` is `expectedCode`), and must leak nothing internal (``ProblemLeak``).
    func checkProblem(_ response: HTTPProbe.Response, check: String, request: String, expectedCode: String? = nil) {
        guard (400..<500).contains(response.status) else {
            record(
                ViolationCode.invalidProblemResponse, check, request: request,
                message: "a bad request was answered \(response.status), not a 4xx", expected: "4xx",
                actual: String(response.status))
            return
        }
        checkContentType(response, expected: ProblemDetails.mediaType, check: check, request: request)
        guard let problem = try? JSONDecoder().decode(ProblemDetails.self, from: Data(response.body)) else {
            record(
                ViolationCode.invalidProblemResponse, check, request: request,
                message:
                    "the \(response.status) body is not a problem+json object with type, title, status, detail, code")
            return
        }
        if problem.status != response.status {
            record(
                ViolationCode.invalidProblemResponse, check, request: request, path: "/status",
                message: "the problem's status differs from the HTTP status", expected: String(response.status),
                actual: String(problem.status))
        }
        if let expectedCode, problem.code != expectedCode {
            record(
                ViolationCode.invalidProblemResponse, check, request: request, path: "/code",
                message: "a \(response.status) problem with another code", expected: expectedCode, actual: problem.code)
        }
        if let leak = ProblemLeak.find(in: response.body) {
            record(
                ViolationCode.invalidProblemResponse, check, request: request,
                message: "the problem body leaks server internals (\(leak.kind)): never a stack trace or a file path",
                actual: leak.excerpt)
        }
    }
}
