import HTTPCore
import PageModel

/// The mock backend's lookup: a request's scenario (`X-Flow-Scenario`, `?__scenario=`, or the session's choice)
/// and the session's copy of a page (changed by its api actions) come before the catalog; provider pages and
/// everything else go to ``CatalogLookup``. What a client's HTTP cache may do with a mock page is decided in
/// ``marked(_:personal:snapshot:)``: answers to a request that names a session or a scenario are
/// `Cache-Control: no-store`, every other page answer `no-cache` (stored, but revalidated on every use, so the mock
/// sees each request), and all vary on the mock's request headers; a document served at its last good version
/// because its file is broken names the error in `X-Flow-Mock-Stale`.
struct MockPageLookup: PageLookup {
    let mock: MockState
    let base: CatalogLookup

    static let personal: HTTPFields = ["Cache-Control": "no-store"]
    /// The request headers a mock page answer depends on besides the page's own `Vary` (`X-Flow-Client`,
    /// `Accept-Language`): the session (header or cookie), the scenario and the network simulation.
    static let mockVary = "\(FlowHeader.session), \(FlowHeader.scenario), \(FlowHeader.mock), Cookie"

    func parameters(of request: HTTPRequest) -> [String: String] {
        var parameters: [String: String] = [:]
        for item in request.queryItems where item.name != FlowHeader.scenarioQuery {
            parameters[item.name] = item.value
        }
        return parameters
    }

    func firstLoad(_ pageID: String, _ request: HTTPRequest, context: RequestContext, snapshot: CatalogSnapshot)
        throws -> PageSource
    {
        if base.providers.registration(for: pageID) != nil {
            return try base.firstLoad(pageID, request, context: context, snapshot: snapshot)
        }
        let session = try context.session()
        let source = try mockSource(pageID, request, session: session, scenario: context.scenario, snapshot: snapshot)
        return marked(source, personal: session != nil || context.scenario != nil, snapshot: snapshot)
    }

    /// The first-load source before ``marked(_:personal:snapshot:)``.
    private func mockSource(
        _ pageID: String, _ request: HTTPRequest, session sessionID: String?, scenario: String?,
        snapshot: CatalogSnapshot
    ) throws -> PageSource {
        // A page put at runtime (`/__admin/stubs`) comes first: a UI test set it up for this run.
        if let stub = mock.stubs.page(pageID, session: sessionID) { return .document(stub) }
        let page = try self.page(pageID, snapshot: snapshot)
        var session = sessionID.flatMap { mock.sessions.session($0) }
        // The data files changed since the session's pages were made from its data stubs: make them again.
        if let current = session, current.data != nil || !snapshot.catalog.data.documents.isEmpty,
            current.data?.baseVersion != snapshot.catalog.data.version
        {
            let stubbed = mock.stubs.data(session: current.id)
            if !stubbed.isEmpty {
                session = mock.sessions.update(current.id) { state in
                    _ = Self.changingData(of: &state, stubbed: stubbed, snapshot: snapshot) { $0 }
                    return state
                }
            }
        }
        var headers: HTTPFields = [:]
        let explicit = scenario ?? session?.scenarios[pageID]
        if let name = explicit ?? session?.scenarios["*"] {
            if let scenario = snapshot.catalog.scenarios[pageID]?[name] {
                switch scenario.content {
                case .problem(let problem):
                    var response = problem.makeResponse()
                    response.headers.set(FlowHeader.scenario, name)
                    if let notice = snapshot.staleNotice(for: scenario.file) {
                        response.headers.set(FlowHeader.mockStale, notice)
                    }
                    return .answer(response)
                case .page(let variant):
                    headers = Self.personal
                    headers.set(FlowHeader.scenario, name)
                    return .document(variant, headers: headers)
                }
            }
            // A scenario file that exists but never loaded is not a missing scenario: say why it is not served.
            if let notice = snapshot.staleNotice(for: "\(pageID).\(name).json") {
                throw ProblemDetails.pageFileInvalid(
                    pageID, file: "\(pageID).\(name).json", notice: notice, in: snapshot.catalog)
            }
            if explicit != nil { headers.set(FlowHeader.scenarioMissing, name) }
        }
        // Page variants by query parameter (Matching/PageVariant.swift) come before the session's copy, which
        // holds the page itself.
        // A page made from data for the query parameters it reads (filterBy, sortable): from the session's copy of
        // the data when it has one (kept with the session's documents, so its cursors continue it), else shared.
        if let queryPages = page.queryPages, let relevant = queryPages.relevant(parameters(of: request)) {
            if let sessionID, let data = session?.data, data.baseVersion == snapshot.catalog.data.version {
                let key =
                    pageID + "?"
                    + relevant.sorted { $0.key < $1.key }.map {
                        MockLayer.queryEncoded($0.key) + "=" + MockLayer.queryEncoded($0.value)
                    }.joined(separator: "&")
                if let kept = session?.documents[key], kept.baseVersion == page.version {
                    return .document(kept.page, headers: headers)
                }
                if let made = queryPages.generator.page(with: data.documents, query: relevant) {
                    mock.sessions.update(sessionID) { state in
                        // Bounded as the shared ones are: at most the most recent sets of values per session.
                        let queried = state.documents.keys.filter { $0.contains("?") }
                        if queried.count >= queryPages.capacity {
                            for stale in queried { state.documents[stale] = nil }
                        }
                        state.documents[key] = SessionDocument(page: made, baseVersion: page.version)
                    }
                    return .document(made, headers: headers)
                }
            } else if let made = queryPages.page(for: relevant, data: snapshot.catalog.data) {
                return .document(made, headers: headers)
            }
        }
        // A page made per item: the session's copy holds the items' pages made from the session's data.
        let copy = session?.documents[pageID].flatMap {
            Self.isCurrent($0, of: page, in: session, snapshot: snapshot) ? $0.page : nil
        }
        let itemsFrom = copy?.items != nil ? copy! : page
        switch snapshot.variant(of: itemsFrom, parameters: parameters(of: request)) {
        case .document(let variant, _)?: return .document(variant, headers: headers)
        case let source?: return source
        case nil: break
        }
        if let document = session?.documents[pageID],
            Self.isCurrent(document, of: page, in: session, snapshot: snapshot)
        {
            return .document(document.page, headers: headers)
        }
        return .document(page, headers: headers)
    }

    /// The page `pageID` of the snapshot.
    /// - Throws: 404 `page_file_invalid` when its file exists but has never loaded, else `page_not_found`.
    func page(_ pageID: String, snapshot: CatalogSnapshot) throws(ProblemDetails) -> CatalogPage {
        do {
            return try snapshot.page(pageID)
        } catch {
            guard let notice = snapshot.staleNotice(for: pageID + ".json") else { throw error }
            throw .pageFileInvalid(pageID, file: pageID + ".json", notice: notice, in: snapshot.catalog)
        }
    }

    /// `source` with `X-Flow-Mock-Stale` when its document's file is broken (the document is its last good
    /// version), and the one caching rule of mock pages: a page answer to a request naming a session or a scenario
    /// (`personal`) is `Cache-Control: no-store`; any other is `no-cache`, whatever the page's `cacheControl` — a
    /// client cache may keep it but asks again every time (a 304 while nothing changed), so a fault header, a
    /// session's first request, a scenario, a reload or an admin change is never answered from the cache. Both
    /// name the mock's request headers in `Vary` beside the page's own.
    func marked(_ source: PageSource, personal: Bool, snapshot: CatalogSnapshot) -> PageSource {
        switch source {
        case .document(let document, var headers):
            if let notice = snapshot.staleNotice(for: document.file) {
                headers.set(FlowHeader.mockStale, notice)
            }
            let personal = personal || headers["Cache-Control"] != nil
            headers.set("Cache-Control", personal ? "no-store" : "no-cache")
            let vary = document.responseHeaders(locale: nil)["Vary"].map { $0 + ", " } ?? ""
            headers.set("Vary", vary + Self.mockVary)
            return .document(document, headers: headers)
        case .answer(var response) where personal:
            response.headers.set("Cache-Control", "no-store")
            return .answer(response)
        default:
            return source
        }
    }

    /// The cursor's content version picks the document it came from (the page, a scenario or the session's copy),
    /// so pagination needs no scenario or session on the request.
    func continuation(of cursor: Cursor, context: RequestContext, snapshot: CatalogSnapshot) throws -> PageSource {
        if base.providers.registration(for: cursor.pageID) != nil {
            return try base.continuation(of: cursor, context: context, snapshot: snapshot)
        }
        // A malformed session id is a 400, as on the first page.
        let session = try context.session()
        let personal = session != nil || context.scenario != nil
        if let stub = mock.stubs.pages(cursor.pageID, session: session).first(where: { $0.version == cursor.version }) {
            return marked(.document(stub), personal: personal, snapshot: snapshot)
        }
        let page = try self.page(cursor.pageID, snapshot: snapshot)
        if cursor.version == page.version {
            return marked(.document(page), personal: personal, snapshot: snapshot)
        }
        if let item = page.items?.byVersion[cursor.version] {
            return marked(.document(item), personal: personal, snapshot: snapshot)
        }
        if let queried = page.queryPages?.page(version: cursor.version) {
            return marked(.document(queried), personal: personal, snapshot: snapshot)
        }
        // A page the session's data made for query parameters (mockSource), kept under "<pageID>?<query>".
        if let session,
            let made = mock.sessions.session(session)?.documents.first(where: { key, document in
                key.hasPrefix(cursor.pageID + "?") && document.page.version == cursor.version
            })
        {
            return marked(.document(made.value.page, headers: Self.personal), personal: true, snapshot: snapshot)
        }
        let variants = documents(of: page, session: session, snapshot: snapshot).dropFirst()
        guard let variant = variants.first(where: { $0.version == cursor.version }) else {
            throw ProblemDetails.cursorExpired
        }
        return marked(.document(variant, headers: Self.personal), personal: true, snapshot: snapshot)
    }

    func actionDocuments(_ pageID: String, context: RequestContext, snapshot: CatalogSnapshot) throws
        -> [CatalogPage]?
    {
        if base.providers.registration(for: pageID) != nil {
            return try base.actionDocuments(pageID, context: context, snapshot: snapshot)
        }
        let session = try context.session()
        let stubs = mock.stubs.pages(pageID, session: session)
        guard !stubs.isEmpty else {
            return documents(of: try page(pageID, snapshot: snapshot), session: session, snapshot: snapshot)
        }
        let files = snapshot.catalog.pages[pageID].map { documents(of: $0, session: session, snapshot: snapshot) }
        return stubs + (files ?? [])
    }

    /// `X-Flow-Scenario` or `?__scenario=`, else the scenario the request's session chose for `pageID`.
    func scenario(for pageID: String, context: RequestContext) -> String? {
        if let named = context.scenario { return named }
        return context.validSession.flatMap { mock.sessions.session($0) }?.scenario(for: pageID)
    }

    /// With a session, the answer's data changes are applied to the session's copy of the data, and every page made
    /// from a changed document is made again for the session; the answer's mutations are applied to the session's
    /// copy of the page the request names, unless that page was just made again from the data (which already shows
    /// the change).
    func actionAnswered(
        _ answer: ActionResponse, _ request: ActionRequest, dataUpdate: DataUpdate?, context: RequestContext,
        snapshot: CatalogSnapshot
    ) {
        guard let sessionID = context.validSession, let page = snapshot.catalog.pages[request.pageID]
        else { return }
        mock.sessions.update(sessionID) { session in
            session.actionCount += 1
            if let dataUpdate,
                Self.changingData(
                    of: &session, stubbed: mock.stubs.data(session: sessionID), snapshot: snapshot,
                    dataUpdate.applied(to:)
                ).contains(page.page.id)
            {
                return
            }
            // A page per item is made from data only: its items' pages are not the page the mutations would apply
            // to (the page itself is made with the first item), so a data change is what changes them.
            guard page.items == nil else { return }
            var document = session.documents[page.page.id]
            if let kept = document, !Self.isCurrent(kept, of: page, in: session, snapshot: snapshot) {
                document = nil
            }
            var current = document ?? SessionDocument(page: page, baseVersion: page.version)
            let changed = Self.applying(answer.mutations, to: current.page.page)
            guard changed != current.page.page else { return }
            let before = current.page
            current.page = CatalogPage(
                page: changed, pageSize: page.pageSize, cacheControl: page.cacheControl,
                actionNames: page.actionNames, file: page.file, strings: page.strings)
            // What the copy was made from stays with it (a page made from data is made again from the session's data).
            current.page.generator = before.generator
            current.page.queryPages = before.queryPages
            current.page.variants = before.variants
            session.documents[page.page.id] = current
        }
    }

    /// Whether the session's copy `document` of `page` is still the one to serve: made from this version of the page
    /// file and, for a page made from data, from the session's copy of the data files as they are now (an edit of a
    /// data file forgets what the session's data made).
    static func isCurrent(
        _ document: SessionDocument, of page: CatalogPage, in session: MockSession?, snapshot: CatalogSnapshot
    ) -> Bool {
        guard document.baseVersion == page.version else { return false }
        guard page.generator != nil, let data = session?.data else { return true }
        return data.baseVersion == snapshot.catalog.data.version
    }

    /// Changes the session's copy of the data with `change` (copied first from the catalog's, with the session's
    /// data stubs `stubbed` in place, or again when the data files changed since) and makes every page that reads a
    /// changed document again for the session.
    /// - Returns: the ids of the pages made again.
    static func changingData(
        of session: inout MockSession, stubbed: [String: JSONValue], snapshot: CatalogSnapshot,
        _ change: (DataDocuments) -> DataDocuments
    ) -> Set<String> {
        let catalogData = snapshot.catalog.data
        let current = session.data.flatMap { $0.baseVersion == catalogData.version ? $0.documents : nil }
        let after = change(current ?? catalogData.overlaid(stubbed))
        session.data = SessionData(documents: after, baseVersion: catalogData.version)
        // What the session is shown was made from its copy, or (without one) from the catalog's data.
        let shown = current ?? catalogData
        let changed = Set((after.names + shown.names).filter { shown.digests[$0] != after.digests[$0] })
        guard !changed.isEmpty else { return [] }
        // The pages made for query parameters from the old data are made again when asked for.
        for key in session.documents.keys where key.contains("?") { session.documents[key] = nil }
        var made: Set<String> = []
        for page in snapshot.catalog.pages.values {
            guard let generator = page.generator, !generator.documents.isDisjoint(with: changed),
                let copy = generator.page(with: after)
            else { continue }
            session.documents[page.page.id] = SessionDocument(page: copy, baseVersion: page.version)
            made.insert(page.page.id)
        }
        return made
    }

    /// Every document of `page` this request could be shown: the page, the session's copy, the scenarios.
    func documents(of page: CatalogPage, session sessionID: String?, snapshot: CatalogSnapshot) -> [CatalogPage] {
        var documents = [page]
        if let session = sessionID.flatMap({ mock.sessions.session($0) }),
            let document = session.documents[page.page.id],
            Self.isCurrent(document, of: page, in: session, snapshot: snapshot)
        {
            documents.append(document.page)
            documents += document.page.items.map { Array($0.pages.values) } ?? []
        }
        documents += page.items.map { Array($0.pages.values) } ?? []
        for scenario in (snapshot.catalog.scenarios[page.page.id] ?? [:]).values {
            if case .page(let variant) = scenario.content { documents.append(variant) }
        }
        return documents
    }

    /// `page` with `mutations` applied in order; a mutation whose target is gone (a widget removed twice) is
    /// skipped. The page keeps its id so cursors stay bound to it.
    static func applying(_ mutations: [PageMutation], to page: PageModel) -> PageModel {
        var document = page
        for mutation in mutations {
            var diagnostics: [Diagnostic] = []
            if let next = try? document.applying(mutation, diagnostics: &diagnostics) { document = next }
        }
        document.id = page.id
        document.pagination = nil
        return document
    }
}
