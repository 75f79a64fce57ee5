/// A request the parser refuses. The connection answers with ``status`` (problem+json, stable ``code``)
/// and closes.
public struct HTTPParseError: HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPStatus
    public var code: String
    public var detail: String

    public init(_ status: HTTPStatus, _ code: String, _ detail: String) {
        self.status = status
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(status.code) \(code): \(detail)" }

    static func bad(_ code: String, _ detail: String) -> HTTPParseError {
        HTTPParseError(.badRequest, code, detail)
    }

    static let bareCR = bad("bare-cr", "CR not followed by LF")
    static let bareLF = bad("bare-lf", "LF not preceded by CR")
    static let obsFold = bad("obs-fold", "Obsolete line folding is not allowed")
    static let whitespaceBeforeColon = bad("whitespace-before-colon", "Whitespace between field name and colon")
    static let invalidFieldName = bad("invalid-field-name", "Invalid character in a field name")
    static let invalidFieldValue = bad("invalid-field-value", "Control character in a field value")
    static let invalidRequestLine = bad("invalid-request-line", "Malformed request line")
    static let invalidMethod = bad("invalid-method", "Invalid method token")
    static let invalidTarget = bad("invalid-target", "Invalid request target")
    static let missingVersion = bad("missing-version", "HTTP/0.9 requests are not supported")
    static let unsupportedVersion = HTTPParseError(
        .httpVersionNotSupported, "unsupported-version", "Only HTTP/1.0 and HTTP/1.1 are supported")
    static let missingHost = bad("missing-host", "HTTP/1.1 requests need exactly one Host field")
    static let duplicateHost = bad("duplicate-host", "More than one Host field")
    static let invalidHost = bad("invalid-host", "Invalid Host field")
    static let invalidContentLength = bad("invalid-content-length", "Invalid Content-Length")
    static let conflictingContentLength = bad("conflicting-content-length", "Conflicting Content-Length values")
    static let contentLengthWithTransferEncoding = bad(
        "content-length-with-transfer-encoding", "Content-Length together with Transfer-Encoding")
    static let chunkedNotLast = bad("chunked-not-last", "Transfer-Encoding must end with a single chunked")
    static let invalidTransferEncoding = bad("invalid-transfer-encoding", "Malformed Transfer-Encoding")
    static let transferEncodingInHTTP10 = bad("transfer-encoding-http10", "Transfer-Encoding in an HTTP/1.0 request")
    static let unsupportedTransferCoding = HTTPParseError(
        .notImplemented, "unsupported-transfer-coding", "Only the chunked transfer coding is supported")
    static let connectNotSupported = HTTPParseError(
        .notImplemented, "connect-not-supported", "CONNECT is not supported")
    static let invalidChunkSize = bad("invalid-chunk-size", "Malformed chunk size")
    static let chunkSizeOverflow = bad("chunk-size-overflow", "Chunk size too large")
    static let chunkLineTooLong = bad("chunk-line-too-long", "Chunk size line or extensions too long")
    static let invalidChunk = bad("invalid-chunk", "Chunk data not followed by CRLF")
    static let tooManyEmptyLines = bad("invalid-request-line", "Too many empty lines before the request line")
    static let requestLineTooLong = HTTPParseError(.uriTooLong, "request-line-too-long", "Request line too long")
    static let headerFieldTooLarge = HTTPParseError(
        .requestHeaderFieldsTooLarge, "header-field-too-large", "A header field is too large")
    static let headerSectionTooLarge = HTTPParseError(
        .requestHeaderFieldsTooLarge, "header-section-too-large", "The header section is too large")
    static let tooManyHeaders = HTTPParseError(
        .requestHeaderFieldsTooLarge, "too-many-headers", "Too many header fields")
    static let bodyTooLarge = HTTPParseError(.contentTooLarge, "body-too-large", "Request body too large")
    static let contentEncodingNotSupported = HTTPParseError(
        .unsupportedMediaType, "content-encoding-not-supported", "Request bodies with Content-Encoding are not accepted"
    )
    static let expectationFailed = HTTPParseError(
        .expectationFailed, "expectation-failed", "Only Expect: 100-continue is supported")
    static let headerTimeout = HTTPParseError(
        .requestTimeout, "header-timeout", "The request head was not received in time")
    static let bodyTimeout = HTTPParseError(
        .requestTimeout, "body-timeout", "The request body was not received in time")
}
