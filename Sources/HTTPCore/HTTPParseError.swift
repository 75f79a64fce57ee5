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

    static let bareCR = bad("bare_cr", "CR not followed by LF")
    static let bareLF = bad("bare_lf", "LF not preceded by CR")
    static let obsFold = bad("obs_fold", "Obsolete line folding is not allowed")
    static let whitespaceBeforeColon = bad("whitespace_before_colon", "Whitespace between field name and colon")
    static let invalidFieldName = bad("invalid_field_name", "Invalid character in a field name")
    static let invalidFieldValue = bad("invalid_field_value", "Control character in a field value")
    static let invalidRequestLine = bad("invalid_request_line", "Malformed request line")
    static let invalidMethod = bad("invalid_method", "Invalid method token")
    static let invalidTarget = bad("invalid_target", "Invalid request target")
    static let invalidTargetCharacter = bad(
        "invalid_target",
        "Character not allowed in the request target (RFC 3986): percent-encode space, controls, non-ASCII, "
            + "<, >, \", {, }, |, \\, ^ and `; a fragment (#) is never sent")
    static let missingVersion = bad("missing_version", "HTTP/0.9 requests are not supported")
    static let unsupportedVersion = HTTPParseError(
        .httpVersionNotSupported, "unsupported_version", "Only HTTP/1.0 and HTTP/1.1 are supported")
    static let missingHost = bad("missing_host", "HTTP/1.1 requests need exactly one Host field")
    static let duplicateHost = bad("duplicate_host", "More than one Host field")
    static let invalidHost = bad(
        "invalid_host", "Invalid Host field (RFC 3986 host characters or [IP literal], then an optional :port)")
    static let emptyHost = bad("invalid_host", "Empty Host field: an http URI needs a host")
    static let invalidHostLiteral = bad("invalid_host", "Invalid IP literal in the Host field ([IPv6] or [vX.future])")
    static let invalidHostPort = bad("invalid_host", "Invalid port in the Host field (digits only, at most 65535)")
    /// A field RFC 9110 §6.5.1 keeps out of trailers (framing, routing, authentication, request modifiers,
    /// content format) sent in the trailer section of a chunked body; see `HTTPParser+Trailers.swift`.
    static func forbiddenTrailer(_ name: String) -> HTTPParseError {
        bad("forbidden_trailer", "\(name) is not allowed in a trailer section (RFC 9110 §6.5.1)")
    }
    static let invalidContentLength = bad("invalid_content_length", "Invalid Content-Length")
    static let conflictingContentLength = bad("conflicting_content_length", "Conflicting Content-Length values")
    static let contentLengthWithTransferEncoding = bad(
        "content_length_with_transfer_encoding", "Content-Length together with Transfer-Encoding")
    static let chunkedNotLast = bad("chunked_not_last", "Transfer-Encoding must end with a single chunked")
    static let invalidTransferEncoding = bad(
        "invalid_transfer_encoding", "Malformed Transfer-Encoding (empty list element or parameters on chunked)")
    static let transferEncodingInHTTP10 = bad("transfer_encoding_http10", "Transfer-Encoding in an HTTP/1.0 request")
    static let unsupportedTransferCoding = HTTPParseError(
        .notImplemented, "unsupported_transfer_coding", "Only the chunked transfer coding is supported")
    static let connectNotSupported = HTTPParseError(
        .notImplemented, "connect_not_supported", "CONNECT is not supported")
    static let invalidChunkSize = bad("invalid_chunk_size", "Malformed chunk size")
    static let chunkSizeOverflow = bad("chunk_size_overflow", "Chunk size too large")
    static let invalidChunkExtension = bad(
        "invalid_chunk_extension", "Malformed chunk extension (RFC 9112 §7.1.1: ;name[=token|quoted-string])")
    static let chunkLineTooLong = bad("chunk_line_too_long", "Chunk size line or extensions too long")
    static let invalidChunk = bad("invalid_chunk", "Chunk data not followed by CRLF")
    static let tooManyEmptyLines = bad("invalid_request_line", "Too many empty lines before the request line")
    static let requestLineTooLong = HTTPParseError(.uriTooLong, "request_line_too_long", "Request line too long")
    static let headerFieldTooLarge = HTTPParseError(
        .requestHeaderFieldsTooLarge, "header_field_too_large", "A header field is too large")
    static let headerSectionTooLarge = HTTPParseError(
        .requestHeaderFieldsTooLarge, "header_section_too_large", "The header section is too large")
    static let tooManyHeaders = HTTPParseError(
        .requestHeaderFieldsTooLarge, "too_many_headers", "Too many header fields")
    static let bodyTooLarge = HTTPParseError(.contentTooLarge, "body_too_large", "Request body too large")
    static let contentEncodingNotSupported = HTTPParseError(
        .unsupportedMediaType, "content_encoding_not_supported", "Request bodies with Content-Encoding are not accepted"
    )
    static let expectationFailed = HTTPParseError(
        .expectationFailed, "expectation_failed", "Only Expect: 100-continue is supported")
    static let headerTimeout = HTTPParseError(
        .requestTimeout, "header_timeout", "The request head was not received in time")
    static let bodyTimeout = HTTPParseError(
        .requestTimeout, "body_timeout", "The request body was not received in time")
}
