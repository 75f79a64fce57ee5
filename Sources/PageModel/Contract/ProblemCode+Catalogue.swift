/// The catalogue of problem codes (``ProblemCode``), by who sends them.
extension ProblemCode {

    // MARK: The contract's (docs/contract.md § 13)

    public static let pageNotFound = ProblemCode(
        "page_not_found", 404, "Page not found", .contract, "no page with that id; the detail names the closest page id"
    )
    public static let itemNotFound = ProblemCode(
        "item_not_found", 404, "Not found", .contract,
        "a page made per data item (server.item) asked without its parameter, or for a value no item has")
    public static let invalidPageID = ProblemCode(
        "invalid_page_id", 400, "Invalid page id", .contract, "a page id outside [A-Za-z0-9][A-Za-z0-9_-]{0,127}")
    public static let invalidCursor = ProblemCode(
        "invalid_cursor", 400, "Invalid cursor", .contract,
        "a postback that is malformed, tampered with, signed by an unknown key or issued for another page")
    public static let cursorExpired = ProblemCode(
        "cursor_expired", 410, "Cursor expired", .contract, "a valid postback for a page version that no longer exists")
    public static let invalidJSON = ProblemCode(
        "invalid_json", 400, "Invalid JSON", .contract, "a request body that is not JSON by the contract's rules")
    public static let invalidRequest = ProblemCode(
        "invalid_request", 400, "Invalid request", .contract,
        "a JSON body (or a page parameter) of the wrong shape; path points at it")
    public static let bodyTooLarge = ProblemCode(
        "body_too_large", 413, "Body too large", .contract, "a request body over the server's limit")
    public static let unsupportedMediaType = ProblemCode(
        "unsupported_media_type", 415, "Unsupported media type", .contract,
        "a request body not declared application/json (another Content-Type, or none)")
    public static let unknownAction = ProblemCode(
        "unknown_action", 404, "Unknown action", .contract, "an api action name nothing answers")
    public static let unknownWidget = ProblemCode(
        "unknown_widget", 400, "Unknown widget", .contract,
        "an action request whose widgetID no device can hold on the page it names")
    public static let undeclaredEvent = ProblemCode(
        "undeclared_event", 400, "Undeclared event", .contract,
        "an action request whose widget declares no action for its event")
    public static let invalidIdempotencyKey = ProblemCode(
        "invalid_idempotency_key", 400, "Invalid Idempotency-Key", .contract,
        "an Idempotency-Key that is empty, too long or not visible ASCII")
    public static let idempotencyKeyInUse = ProblemCode(
        "idempotency_key_in_use", 409, "Idempotency-Key in use", .contract,
        "a retry while the first request with that key is still being answered")
    public static let idempotencyKeyReused = ProblemCode(
        "idempotency_key_reused", 422, "Idempotency-Key reused", .contract,
        "an Idempotency-Key sent again with another action or body")
    public static let idempotencyStoreUnavailable = ProblemCode(
        "idempotency_store_unavailable", 503, "Idempotency store unavailable", .contract,
        "a keyed action request while the idempotency store cannot answer; the action did not run")
    public static let actionTimeout = ProblemCode(
        "action_timeout", 504, "Action timeout", .contract, "an action handler missed its timeout")
    public static let invalidActionValue = ProblemCode(
        "invalid_action_value", 422, "Invalid action value", .contract,
        "a value the request sent cannot be placed in the declared answer")
    public static let invalidActionResponse = ProblemCode(
        "invalid_action_response", 500, "Invalid action response", .contract, "an action's answer has error diagnostics"
    )
    public static let methodNotAllowed = ProblemCode(
        "method_not_allowed", 405, "Method not allowed", .contract, "a known route with another method")
    public static let notFound = ProblemCode("not_found", 404, "Not found", .contract, "no such route")
    public static let notReady = ProblemCode(
        "not_ready", 503, "Not ready", .contract, "/readyz while the server starts or drains")
    public static let invalidClientHeader = ProblemCode(
        "invalid_client_header", 400, "Invalid client header", .contract, "a malformed X-Flow-Client header")
    public static let upstreamUnavailable = ProblemCode(
        "upstream_unavailable", 502, "Upstream unavailable", .contract,
        "a page provider's or action handler's required upstream, or the proxy's upstream, failed")
    public static let upstreamTimeout = ProblemCode(
        "upstream_timeout", 504, "Upstream timeout", .contract, "a required upstream missed its timeout")
    public static let proxyRefused = ProblemCode(
        "proxy_refused", 400, "Proxy request refused", .contract,
        "an absolute-form request target: the proxy forwards only to its configured upstream")
    public static let proxyLoop = ProblemCode(
        "proxy_loop", 508, "Proxy loop", .contract, "a request that already passed through this proxy")
    public static let providerTimeout = ProblemCode(
        "provider_timeout", 504, "Provider timeout", .contract, "a page provider as a whole missed its timeout")
    public static let invalidProviderPage = ProblemCode(
        "invalid_provider_page", 500, "Invalid provider page", .contract,
        "a page provider returned a page with error diagnostics")
    public static let internalError = ProblemCode(
        "internal_error", 500, "Internal error", .contract,
        "anything unexpected; logged with the request id, no internals in the body")

    // MARK: Mock mode (docs/mock.md, docs/preview.md)

    public static let pageFileInvalid = ProblemCode(
        "page_file_invalid", 404, "Page file invalid", .mock,
        "the page's file exists but has never loaded; the detail names the file and its first error")
    public static let invalidSession = ProblemCode(
        "invalid_session", 400, "Invalid session", .mock,
        "a session id (X-Flow-Session or the flow_session cookie) outside its pattern")
    public static let unknownSession = ProblemCode(
        "unknown_session", 404, "Unknown session", .mock, "an admin request for a session the server does not hold")
    public static let unknownScenario = ProblemCode(
        "unknown_scenario", 400, "Unknown scenario", .mock,
        "an admin request choosing a scenario the page does not have")
    public static let invalidStub = ProblemCode(
        "invalid_stub", 400, "Invalid stub", .mock,
        "a page or action answer put at runtime that a page file could not hold; diagnostics name each finding")
    public static let invalidMockHeader = ProblemCode(
        "invalid_mock_header", 400, "Invalid X-Flow-Mock header", .mock, "an X-Flow-Mock header that does not parse")
    public static let simulatedFault = ProblemCode(
        "simulated_fault", nil, "Simulated fault", .mock, "a 5xx or 429 the network simulation answers on purpose")
    public static let invalidQuery = ProblemCode(
        "invalid_query", 400, "Invalid query parameter", .mock, "a journal query parameter that does not parse")
    public static let adminForbidden = ProblemCode(
        "admin_forbidden", 403, "Forbidden", .mock,
        "an admin request from a peer that is neither loopback nor holding the admin token")
    public static let crossSiteRefused = ProblemCode(
        "cross_site_refused", 403, "Cross-site request refused", .mock,
        "a state-changing admin request a web page could have sent")
    public static let adminHeaderRequired = ProblemCode(
        "admin_header_required", 403, "Admin header required", .mock,
        "a state-changing admin request without the X-Flow-Admin header")
    public static let hostNotAllowed = ProblemCode(
        "host_not_allowed", 403, "Host not allowed", .mock,
        "an admin or index request whose Host is not allowed (DNS rebinding)")
    public static let unknownPreviewAsset = ProblemCode(
        "unknown_preview_asset", 404, "Unknown preview asset", .mock,
        "a /__preview/ path that names no file of the preview")

    // MARK: The HTTP layer (docs/http.md), for requests no route sees

    public static let bareCR = ProblemCode("bare_cr", 400, "Bad Request", .http, "CR not followed by LF")
    public static let bareLF = ProblemCode("bare_lf", 400, "Bad Request", .http, "LF not preceded by CR")
    public static let obsFold = ProblemCode("obs_fold", 400, "Bad Request", .http, "obsolete line folding")
    public static let whitespaceBeforeColon = ProblemCode(
        "whitespace_before_colon", 400, "Bad Request", .http, "whitespace between a field name and its colon")
    public static let invalidFieldName = ProblemCode(
        "invalid_field_name", 400, "Bad Request", .http, "an invalid character in a field name")
    public static let invalidFieldValue = ProblemCode(
        "invalid_field_value", 400, "Bad Request", .http, "a control character in a field value")
    public static let invalidRequestLine = ProblemCode(
        "invalid_request_line", 400, "Bad Request", .http, "a malformed request line")
    public static let invalidMethod = ProblemCode(
        "invalid_method", 400, "Bad Request", .http, "an invalid method token")
    public static let invalidTarget = ProblemCode(
        "invalid_target", 400, "Bad Request", .http, "an invalid request target")
    public static let invalidPathEncoding = ProblemCode(
        "invalid_path_encoding", 400, "Bad Request", .http, "malformed percent-encoding in a path parameter")
    public static let missingVersion = ProblemCode("missing_version", 400, "Bad Request", .http, "an HTTP/0.9 request")
    public static let unsupportedVersion = ProblemCode(
        "unsupported_version", 505, "HTTP Version Not Supported", .http, "a version other than HTTP/1.0 and HTTP/1.1")
    public static let missingHost = ProblemCode(
        "missing_host", 400, "Bad Request", .http, "an HTTP/1.1 request without one Host field")
    public static let duplicateHost = ProblemCode(
        "duplicate_host", 400, "Bad Request", .http, "more than one Host field")
    public static let invalidHost = ProblemCode("invalid_host", 400, "Bad Request", .http, "an invalid Host field")
    public static let forbiddenTrailer = ProblemCode(
        "forbidden_trailer", 400, "Bad Request", .http, "a field RFC 9110 keeps out of trailers, sent in one")
    public static let invalidContentLength = ProblemCode(
        "invalid_content_length", 400, "Bad Request", .http, "an invalid Content-Length")
    public static let conflictingContentLength = ProblemCode(
        "conflicting_content_length", 400, "Bad Request", .http, "conflicting Content-Length values")
    public static let contentLengthWithTransferEncoding = ProblemCode(
        "content_length_with_transfer_encoding", 400, "Bad Request", .http,
        "Content-Length together with Transfer-Encoding")
    public static let chunkedNotLast = ProblemCode(
        "chunked_not_last", 400, "Bad Request", .http, "a Transfer-Encoding that does not end with a single chunked")
    public static let invalidTransferEncoding = ProblemCode(
        "invalid_transfer_encoding", 400, "Bad Request", .http, "a malformed Transfer-Encoding")
    public static let transferEncodingHTTP10 = ProblemCode(
        "transfer_encoding_http10", 400, "Bad Request", .http, "Transfer-Encoding in an HTTP/1.0 request")
    public static let unsupportedTransferCoding = ProblemCode(
        "unsupported_transfer_coding", 501, "Not Implemented", .http, "a transfer coding other than chunked")
    public static let connectNotSupported = ProblemCode(
        "connect_not_supported", 501, "Not Implemented", .http, "a CONNECT request")
    public static let invalidChunkSize = ProblemCode(
        "invalid_chunk_size", 400, "Bad Request", .http, "a malformed chunk size")
    public static let chunkSizeOverflow = ProblemCode(
        "chunk_size_overflow", 400, "Bad Request", .http, "a chunk size too large")
    public static let invalidChunkExtension = ProblemCode(
        "invalid_chunk_extension", 400, "Bad Request", .http, "a malformed chunk extension")
    public static let chunkLineTooLong = ProblemCode(
        "chunk_line_too_long", 400, "Bad Request", .http, "a chunk size line or its extensions too long")
    public static let invalidChunk = ProblemCode(
        "invalid_chunk", 400, "Bad Request", .http, "chunk data not followed by CRLF")
    public static let requestLineTooLong = ProblemCode(
        "request_line_too_long", 414, "URI Too Long", .http, "a request line too long")
    public static let headerFieldTooLarge = ProblemCode(
        "header_field_too_large", 431, "Request Header Fields Too Large", .http, "a header field too large")
    public static let headerSectionTooLarge = ProblemCode(
        "header_section_too_large", 431, "Request Header Fields Too Large", .http, "a header section too large")
    public static let tooManyHeaders = ProblemCode(
        "too_many_headers", 431, "Request Header Fields Too Large", .http, "too many header fields")
    public static let contentEncodingNotSupported = ProblemCode(
        "content_encoding_not_supported", 415, "Unsupported Media Type", .http, "a request body with a Content-Encoding"
    )
    public static let expectationFailed = ProblemCode(
        "expectation_failed", 417, "Expectation Failed", .http, "an Expect other than 100-continue")
    public static let headerTimeout = ProblemCode(
        "header_timeout", 408, "Request Timeout", .http, "a request head not received in time")
    public static let bodyTimeout = ProblemCode(
        "body_timeout", 408, "Request Timeout", .http, "a request body not received in time")
    public static let tooManyConnections = ProblemCode(
        "too_many_connections", 503, "Service Unavailable", .http, "a connection over the server's limit")

    /// Every code, in the order above.
    public static let all: [ProblemCode] = [
        pageNotFound, itemNotFound, invalidPageID, invalidCursor, cursorExpired, invalidJSON, invalidRequest,
        bodyTooLarge,
        unsupportedMediaType, unknownAction, unknownWidget, undeclaredEvent, invalidIdempotencyKey,
        idempotencyKeyInUse, idempotencyKeyReused, idempotencyStoreUnavailable, actionTimeout, invalidActionValue,
        invalidActionResponse, methodNotAllowed, notFound, notReady, invalidClientHeader, upstreamUnavailable,
        upstreamTimeout, proxyRefused, proxyLoop, providerTimeout, invalidProviderPage, internalError, pageFileInvalid,
        invalidSession, unknownSession, unknownScenario, invalidStub, invalidMockHeader, simulatedFault, invalidQuery,
        adminForbidden, crossSiteRefused, adminHeaderRequired, hostNotAllowed, unknownPreviewAsset, bareCR, bareLF,
        obsFold, whitespaceBeforeColon, invalidFieldName, invalidFieldValue, invalidRequestLine, invalidMethod,
        invalidTarget, invalidPathEncoding, missingVersion, unsupportedVersion, missingHost, duplicateHost,
        invalidHost, forbiddenTrailer, invalidContentLength, conflictingContentLength,
        contentLengthWithTransferEncoding, chunkedNotLast, invalidTransferEncoding, transferEncodingHTTP10,
        unsupportedTransferCoding, connectNotSupported, invalidChunkSize, chunkSizeOverflow, invalidChunkExtension,
        chunkLineTooLong, invalidChunk, requestLineTooLong, headerFieldTooLarge, headerSectionTooLarge,
        tooManyHeaders, contentEncodingNotSupported, expectationFailed, headerTimeout, bodyTimeout, tooManyConnections,
    ]
}
