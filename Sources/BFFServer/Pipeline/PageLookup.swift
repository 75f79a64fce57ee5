import HTTPCore
import PageModel

/// Where the document for a page request comes from.
enum PageSource: Sendable {
    /// A document in memory (a page file, a mock scenario or session copy), with response fields to add to the
    /// page's own (`Cache-Control: no-store` for per-session answers, `X-Flow-Scenario`, …).
    case document(CatalogPage, headers: HTTPFields = [:])
    /// A fixed answer instead of a page (a mock error scenario).
    case answer(HTTPResponse)
    /// A Swift provider computes the document per request.
    case provider(PageProviders.Registration)
}

/// Names the document of each page request; the pipeline (Pipeline/PageRoutes.swift) does the rest —
/// cursors, client resolution, encoding, caching — the same way for every source. ``CatalogLookup`` in
/// production; ``MockPageLookup`` puts scenarios and per-session copies in front of it in mock mode.
protocol PageLookup: Sendable {
    /// The page parameters of a first load (the query, less what the lookup reserves for itself).
    func parameters(of request: HTTPRequest) -> [String: String]
    /// The source of a first load of `pageID` (a valid page id).
    func firstLoad(_ pageID: String, _ request: HTTPRequest, context: RequestContext, snapshot: CatalogSnapshot)
        throws -> PageSource
    /// The source a verified cursor continues.
    /// - Throws: 410 `cursor_expired` when the document it was issued for is gone.
    func continuation(of cursor: Cursor, context: RequestContext, snapshot: CatalogSnapshot) throws -> PageSource
    /// The documents a device could hold as `pageID` when it fires an api action, for checking the request's
    /// widget and event; `nil` when none is known (a provider page not produced since start).
    func actionDocuments(_ pageID: String, context: RequestContext, snapshot: CatalogSnapshot) throws
        -> [CatalogPage]?
    /// Called with the answer of an api action request that passed its checks, before it is sent, with the data
    /// changes it declares.
    func actionAnswered(
        _ answer: ActionResponse, _ request: ActionRequest, dataUpdate: DataUpdate?, context: RequestContext,
        snapshot: CatalogSnapshot)
    /// The scenario in effect for `pageID` that conditions read as `session.scenario` (mock mode only: production
    /// serves no scenarios, so it is `nil` there).
    func scenario(for pageID: String, context: RequestContext) -> String?
}

/// Production lookup: Swift providers first (a provider shadows a page file with the same id), then the catalog.
struct CatalogLookup: PageLookup {
    let providers: PageProviders

    func parameters(of request: HTTPRequest) -> [String: String] {
        var parameters: [String: String] = [:]
        for item in request.queryItems { parameters[item.name] = item.value }
        return parameters
    }

    func firstLoad(_ pageID: String, _ request: HTTPRequest, context: RequestContext, snapshot: CatalogSnapshot)
        throws -> PageSource
    {
        if let registration = providers.registration(for: pageID) { return .provider(registration) }
        let page = try snapshot.page(pageID)
        // Most pages have no variants: skip decoding the query a second time for them.
        guard !page.variants.isEmpty || page.items != nil || page.queryPages != nil else { return .document(page) }
        let parameters = parameters(of: request)
        if let queryPages = page.queryPages, let relevant = queryPages.relevant(parameters) {
            return .document(queryPages.page(for: relevant, data: snapshot.catalog.data) ?? page)
        }
        return snapshot.variant(of: page, parameters: parameters) ?? .document(page)
    }

    func continuation(of cursor: Cursor, context: RequestContext, snapshot: CatalogSnapshot) throws -> PageSource {
        if let registration = providers.registration(for: cursor.pageID) { return .provider(registration) }
        let page = try snapshot.page(cursor.pageID)
        guard cursor.version == page.version else {
            if let item = page.items?.byVersion[cursor.version] { return .document(item) }
            if let queried = page.queryPages?.page(version: cursor.version) { return .document(queried) }
            // A cursor issued on a variant (Matching/PageVariant.swift) continues that document.
            guard let variant = snapshot.variantDocuments(of: page).first(where: { $0.version == cursor.version })
            else { throw ProblemDetails.cursorExpired }
            return .document(variant)
        }
        return .document(page)
    }

    func actionDocuments(_ pageID: String, context: RequestContext, snapshot: CatalogSnapshot) throws
        -> [CatalogPage]?
    {
        if providers.registration(for: pageID) != nil { return providers.latest(pageID).map { [$0] } }
        let page = try snapshot.page(pageID)
        return [page] + snapshot.variantDocuments(of: page)
    }

    /// Production keeps no per-session state: declared data changes are a mock-mode feature.
    func actionAnswered(
        _ answer: ActionResponse, _ request: ActionRequest, dataUpdate: DataUpdate?, context: RequestContext,
        snapshot: CatalogSnapshot
    ) {}

    func scenario(for pageID: String, context: RequestContext) -> String? { nil }
}
