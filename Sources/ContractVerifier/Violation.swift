import PageModel

/// One broken rule of the contract, found while crawling a server.
///
/// `code` is stable (``ViolationCode``); `page`, `request` and `path` say where: the page target being crawled,
/// the HTTP request that showed it, and a JSON Pointer into that request's response body (or the document).
public struct Violation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Stable snake_case code, e.g. `duplicate_id`; the list is in `docs/contract-testing.md`.
    public var code: String
    /// The page target, `pageID` plus its parameters as a query (`product?productID=p-1`).
    public var page: String
    /// The check that found it: `load`, `pagination`, `replay`, `tampered_cursor`, `actions`, `lifecycle`, `http`.
    public var check: String
    /// `METHOD /path?query` of the request that showed the violation.
    public var request: String
    /// JSON Pointer into the response body or document; empty for the whole response.
    public var path: String
    /// One line: what is wrong.
    public var message: String
    /// What the contract expects, when a comparison helps (a diff's expected side).
    public var expected: String?
    /// What the server did (a diff's actual side).
    public var actual: String?

    public init(
        code: String, page: String, check: String, request: String, path: JSONPointer = .root, message: String,
        expected: String? = nil, actual: String? = nil
    ) {
        self.code = code
        self.page = page
        self.check = check
        self.request = request
        self.path = path.string
        self.message = message
        self.expected = expected
        self.actual = actual
    }

    /// `code: message`, without repeating a code the message already starts with (a lint finding's message is
    /// `duplicate_id: …` under the code `duplicate_id`).
    public var codedMessage: String { message.hasPrefix(code + ":") ? message : "\(code): \(message)" }

    /// The violation without where it was found: identical ones (the same code, check, message and comparison on
    /// other pages or paths) are reported once, with a count.
    var sameness: [String] { [code, check, message, expected ?? "", actual ?? ""] }

    /// `code page request path: message`.
    public var description: String {
        "\(code) \(page) \(request) \(path.isEmpty ? "/" : path): \(message)"
    }
}

/// The stable violation codes `verify` reports. `docs/contract-testing.md` explains each one.
public enum ViolationCode {
    /// A page reachable from the entry pages loads to `.failed` (HTTP error, undecodable body, bad envelope).
    public static let pageFailed = "page_failed"
    /// A page, chunk or action response decodes or lints (`PageValidator`) with an error diagnostic (e.g.
    /// `invalid_content`, `missing_children`, `budget_exceeded`).
    public static let errorDiagnostic = "error_diagnostic"
    /// A first load answers a page whose `id` is not the requested page id (the page id of the route).
    public static let pageIDMismatch = "page_id_mismatch"
    /// An answer does not carry the request's `X-Request-ID` (docs/contract.md § 14).
    public static let requestIDNotEchoed = "request_id_not_echoed"
    /// A section id or top-level widget id repeats across the paginated document.
    public static let duplicateID = "duplicate_id"
    /// A next-page request fails.
    public static let paginationFailed = "pagination_failed"
    /// Pagination does not end with `hasMore == false`: a cursor repeats, `hasMore` comes without a postback, or
    /// the chunk limit is reached.
    public static let paginationNotTerminated = "pagination_not_terminated"
    /// Replaying a postback returns a different chunk.
    public static let replayMismatch = "replay_mismatch"
    /// A tampered postback is answered with a success.
    public static let tamperedCursorAccepted = "tampered_cursor_accepted"
    /// An error is not a 4xx `application/problem+json` body with a matching `status`.
    public static let invalidProblemResponse = "invalid_problem_response"
    /// An api action fails: HTTP error, transport error, or a body that is not an `actionResponse` envelope.
    public static let actionFailed = "action_failed"
    /// An action's mutation does not apply to the current document (`mutation_target_not_found`, …).
    public static let mutationFailed = "mutation_failed"
    /// An action's mutation introduces a section or widget id the document already has.
    public static let mutationIDCollision = "mutation_id_collision"
    /// An action response's effect is not one the client can run (unknown type, invalid fields).
    public static let invalidEffect = "invalid_effect"
    /// Widget state set before `loadNextPage()` is gone after it.
    public static let widgetStateLostOnPagination = "widget_state_lost_on_pagination"
    /// Widget state survives `refresh()`.
    public static let widgetStateKeptOnRefresh = "widget_state_kept_on_refresh"
    /// The document after `refresh()` differs from a fresh load.
    public static let refreshDiffersFromFreshLoad = "refresh_differs_from_fresh_load"
    /// A response's `Content-Type` is not `application/json` (or `application/problem+json` for errors).
    public static let wrongContentType = "wrong_content_type"
    /// `Accept-Encoding: gzip` is not honoured on a body of at least 1 KiB, or the gzip body differs.
    public static let gzipNotHonoured = "gzip_not_honoured"
    /// `ETag` and `If-None-Match` disagree (no 304 for the current tag, a 304 for another, a body on a 304).
    public static let etagInconsistent = "etag_inconsistent"
    /// An answer depends on a request header (`Accept-Language`, `X-Flow-Client`, `Accept-Encoding`) its `Vary`
    /// does not name.
    public static let varyIncomplete = "vary_incomplete"
    /// With `--capabilities`: the declared client loses a section or widget whose author did not choose to lose
    /// it (no `"drop"` fallback).
    public static let contentLost = "content_lost"
    /// A localized page's envelope `locale` and its `Content-Language` header disagree (or the header is missing).
    public static let localeMismatch = "locale_mismatch"
    /// A postback sent without the client headers (`X-Flow-Client`, `Accept-Language`) or with another client's
    /// brings another chunk: the cursor must bind the profile and locale of its first page (contract § 17, § 18).
    public static let cursorNotBound = "cursor_not_bound"
    /// An `X-Flow-Client` answer is not the contract's resolution of the unresolved page: a widget or section the
    /// client does not qualify for is served unchanged, a loss or replacement is missing from `degradations`, or
    /// the answer without the header lists degradations (contract § 17).
    public static let resolutionMismatch = "resolution_mismatch"
    /// With `--capabilities PROFILE`: a page or chunk shows the client a widget or section it cannot render, or
    /// an unlocalized `$l10n:` string.
    public static let unrenderableWidget = "unrenderable_widget"

    /// Every code, in documentation order.
    public static let all = [
        pageFailed, pageIDMismatch, requestIDNotEchoed, errorDiagnostic, duplicateID, paginationFailed,
        paginationNotTerminated,
        replayMismatch,
        tamperedCursorAccepted, invalidProblemResponse, actionFailed, mutationFailed, mutationIDCollision,
        invalidEffect, widgetStateLostOnPagination, widgetStateKeptOnRefresh, refreshDiffersFromFreshLoad,
        wrongContentType, gzipNotHonoured, etagInconsistent, varyIncomplete, cursorNotBound, resolutionMismatch,
        contentLost, localeMismatch, unrenderableWidget,
    ]
}
