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
    struct Registration: Sendable {
        var provider: PageProvider
        var options: PageProviderOptions
    }

    struct PageKey: Hashable, Sendable {
        var pageID: String
        /// `nil` for the page id's latest page.
        var parameters: [String: String]?
    }

    private let entries = Mutex<[String: Registration]>([:])
    private let registered = Atomic<Int>(0)
    /// The latest page each (page id, parameters) produced, so next-page requests usually need no provider call.
    private let recent = BoundedCache<PageKey, CatalogPage>(capacity: 1_024)
    private let outcomes = LabeledCounter(
        "flow_bff_provider_calls_total", help: "Page provider calls, by page and outcome.", labels: ["page", "outcome"])
    /// Sink for ``UpstreamClient`` metrics, rendered at `/metrics`.
    public let upstreamMetrics = UpstreamMetrics()

    public init() {}

    /// Serves `provider` at `GET /v1/pages/{pageID}` from now on.
    /// - Precondition: `pageID` matches ``PageID/pattern``.
    public func register(
        _ pageID: String, options: PageProviderOptions = PageProviderOptions(), _ provider: @escaping PageProvider
    ) {
        precondition(PageID.isValid(pageID), "page ids match \(PageID.pattern)")
        entries.withLock { $0[pageID] = Registration(provider: provider, options: options) }
        registered.add(1, ordering: .relaxed)
    }

    /// Registered page ids, sorted.
    public var pageIDs: [String] { entries.withLock { $0.keys.sorted() } }

    /// True while no provider is registered (one atomic load).
    var isEmpty: Bool { registered.load(ordering: .relaxed) == 0 }

    /// The registration for `pageID`; one atomic load when nothing is registered (the file-page hot path).
    func registration(for pageID: some StringProtocol) -> Registration? {
        guard registered.load(ordering: .relaxed) > 0 else { return nil }
        return entries.withLock { $0[String(pageID)] }
    }

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

    func count(_ pageID: String, outcome: String) {
        outcomes.increment([pageID, outcome])
    }

    /// Provider calls by page and outcome (none before the first call), then the upstream families.
    var families: [MetricFamily] {
        (outcomes.isEmpty ? [] : [outcomes.family]) + upstreamMetrics.families
    }
}
