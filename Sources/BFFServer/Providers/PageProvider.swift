import HTTPCore
import PageModel

/// Composes a page in Swift for one request. Registered for a page id with ``PageProviders/register(_:options:_:)``;
/// its pages get the same validation, pagination with signed cursors, client resolution, ETag and metrics as
/// page files. Throw a ``PageProviderError`` for a deliberate problem+json answer; anything else is a logged 500.
public typealias PageProvider = @Sendable (PageRequestContext) async throws -> ProvidedPage

/// What a provider knows about the request: its page and parameters, and the ``CallContext`` every Swift answer gets
/// (`context.session`, `context.requestID`, `context.deadline`, `context.log`, …).
@dynamicMemberLookup
public struct PageRequestContext: Sendable {
    public var pageID: String
    /// Page parameters: the first request's query items (for a next-page request, the ones its cursor bound).
    public var parameters: [String: String]
    public var call: CallContext

    public subscript<Value>(dynamicMember keyPath: KeyPath<CallContext, Value>) -> Value { call[keyPath: keyPath] }
}

/// A provider's result.
public struct ProvidedPage: Sendable {
    public var page: PageModel
    /// Strings for `$l10n:` markers in `page`; the server negotiates the locale like for page files.
    public var strings: LocalizedStrings?
    /// What the provider degraded (e.g. ``Degradation/Code/upstreamFallback`` sections); listed in the first
    /// page's `degradations`.
    public var degradations: [Degradation]

    public init(_ page: PageModel, strings: LocalizedStrings? = nil, degradations: [Degradation] = []) {
        self.page = page
        self.strings = strings
        self.degradations = degradations
    }
}

/// How a provider page is served.
public struct PageProviderOptions: Sendable, Hashable {
    /// Sections per chunk; `nil` uses `pages.defaultPageSize`.
    public var pageSize: Int?
    /// `Cache-Control`; `nil` uses `pages.cacheControl`.
    public var cacheControl: String?
    /// The provider must return within this time, else 504 `provider_timeout`. Default 2 s.
    public var timeout: Duration

    public init(pageSize: Int? = nil, cacheControl: String? = nil, timeout: Duration = .seconds(2)) {
        self.pageSize = pageSize
        self.cacheControl = cacheControl
        self.timeout = timeout
    }
}

/// A deliberate provider failure, answered as problem+json with its status and code.
public struct PageProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var title: String
    public var detail: String

    public init(status: Int, code: String, title: String, detail: String) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
    }

    /// A problem of the catalogue (``ProblemCode``) with its status and title.
    public init(_ code: ProblemCode, detail: String) {
        precondition(code.status != nil, "\(code) takes its status from the occurrence")
        self.init(status: code.status!, code: code.rawValue, title: code.title, detail: detail)
    }

    /// 404 `page_not_found` (e.g. an unknown product id).
    public static func notFound(_ detail: String) -> PageProviderError {
        PageProviderError(.pageNotFound, detail: detail)
    }

    /// 400 `invalid_request` (a missing or malformed page parameter).
    public static func invalidParameter(_ detail: String) -> PageProviderError {
        PageProviderError(.invalidRequest, detail: detail)
    }

    /// A required upstream failed: 504 `upstream_timeout` or 502 `upstream_unavailable`.
    public static func upstream(_ error: UpstreamError) -> PageProviderError {
        PageProviderError(
            error.code == ProblemCode.upstreamTimeout.rawValue ? .upstreamTimeout : .upstreamUnavailable,
            detail: error.description)
    }

    public var description: String { "\(status) \(code): \(detail)" }

    var problem: ProblemDetails { ProblemDetails(status: status, code: code, title: title, detail: detail) }
}

extension PageProviderError: HTTPResponseConvertible {
    /// The problem+json answer of this error.
    public func makeResponse() -> HTTPResponse { problem.makeResponse() }
}

/// A section built from upstream data, or its documented fallback when the upstream failed.
public struct SectionOutcome: Sendable {
    public var section: Section?
    public var degradation: Degradation?

    /// Runs `build`. When it throws, the result is `fallback` (or no section when `nil`) with an
    /// `upstream_fallback` degradation naming `sectionID` and the error — the page is still served.
    /// For a section the page cannot do without, call `build` directly and throw
    /// ``PageProviderError/upstream(_:)`` instead.
    public static func degradable(
        _ sectionID: String, fallback: Section?, _ build: () async throws -> Section
    ) async -> SectionOutcome {
        do {
            return SectionOutcome(section: try await build(), degradation: nil)
        } catch {
            let reason = (error as? UpstreamError)?.description ?? "\(error)"
            return SectionOutcome(
                section: fallback,
                degradation: Degradation(
                    code: Degradation.Code.upstreamFallback, sectionID: sectionID,
                    replacement: fallback?.id, reason: reason))
        }
    }
}
