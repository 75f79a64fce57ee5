import PageModel
import Synchronization

/// The programmatic pages of a server, by page id. Register before or while serving:
///
/// ```swift
/// let service = try makeServer(configuration: configuration)
/// service.application.providers.register("product-live", options: .init(pageSize: 2)) { context in
///     ProvidedPage(PageModel(id: "product-live", sections: [ … ]))
/// }
/// ```
///
/// A provider page id shadows a page file with the same id.
public final class PageProviders: Sendable {
    typealias Registration = CodeRegistry<PageProvider, PageProviderOptions>.Registration

    struct PageKey: Hashable, Sendable {
        var pageID: String
        /// `nil` for the page id's latest page.
        var parameters: [String: String]?
    }

    let code = CodeRegistry<PageProvider, PageProviderOptions>(
        .init(
            subject: "page provider", label: "page", metric: "flow_bff_provider_calls_total",
            help: "Page provider calls, by page and outcome.", timeoutCode: .providerTimeout,
            invalidCode: .invalidProviderPage, allowsPatterns: false))
    /// The latest page each (page id, parameters) produced, so next-page requests usually need no provider call.
    private let recent = BoundedCache<PageKey, CatalogPage>(capacity: 1_024)
    /// Sink for ``UpstreamClient`` metrics, rendered at `/metrics`.
    public let upstreamMetrics = UpstreamMetrics()

    public init() {}

    /// Serves `provider` at `GET /v1/pages/{pageID}` from now on.
    /// - Precondition: `pageID` matches ``PageID/pattern``.
    public func register(
        _ pageID: String, options: PageProviderOptions = PageProviderOptions(), _ provider: @escaping PageProvider
    ) {
        precondition(PageID.isValid(pageID), "page ids match \(PageID.pattern)")
        code.register(pageID, options: options, provider)
    }

    /// Registered page ids, sorted.
    public var pageIDs: [String] { code.patterns }

    /// The registration for `pageID`; one atomic load when nothing is registered (the file-page hot path).
    func registration(for pageID: some StringProtocol) -> Registration? { code.registration(for: pageID) }

    /// Remembers the page a provider just produced for `parameters` (and as the page id's latest).
    func remember(_ page: CatalogPage, parameters: [String: String]) {
        recent.set(PageKey(pageID: page.page.id, parameters: parameters), page)
        recent.set(PageKey(pageID: page.page.id, parameters: nil), page)
    }

    /// The page produced for `parameters` when it still has `version` (cursors continue it without a call).
    func remembered(_ pageID: String, parameters: [String: String], version: String) -> CatalogPage? {
        recent[PageKey(pageID: pageID, parameters: parameters)].flatMap { $0.version == version ? $0 : nil }
    }

    /// The page last produced for `parameters`, whatever its version.
    func remembered(_ pageID: String, parameters: [String: String]) -> CatalogPage? {
        recent[PageKey(pageID: pageID, parameters: parameters)]
    }

    /// The page last produced for `pageID` with any parameters (action requests are checked against it).
    func latest(_ pageID: String) -> CatalogPage? {
        recent[PageKey(pageID: pageID, parameters: nil)]
    }

    /// Provider calls by page and outcome (none before the first call), then the upstream families.
    var families: [MetricFamily] { code.families + upstreamMetrics.families }
}
