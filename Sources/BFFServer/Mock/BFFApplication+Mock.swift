import CCrypto
import Dispatch
import Foundation
import HTTPCore
import PageModel

extension BFFApplication {
    // MARK: Simulation and journal

    /// The mock-mode front door: admin requests go straight to the router; every other request gets the network
    /// simulation its header or route asks for, is served scenario- and session-aware, and is journaled.
    func respondSimulating(_ request: HTTPRequest, mock: MockState) throws -> HTTPReply {
        if request.path.hasPrefix("/__admin/") { return try serve(request) }
        let session = try? MockRequestContext.sessionID(request)
        var reply: HTTPReply
        var decision = FaultDecision()
        do {
            let header = try request.headers[MockRequestContext.simulationHeader].map(FaultSpec.parse)
            let spec = FaultPlan.spec(
                header: header, method: request.method.rawValue, path: request.path,
                runtime: mock.runtimeRules.withLock { $0 }, configured: mock.configuration.faults)
            if let spec, !spec.isNone {
                decision = mock.plan.decide(counter: mock.counter.add(1, ordering: .relaxed).oldValue, spec: spec)
            }
            reply = try simulate(decision, request: request)
        } catch let error as FaultSpecError {
            reply = .response(
                Self.stamped(
                    ProblemDetails(
                        status: 400, code: "invalid_mock_header", title: "Invalid X-Flow-Mock header",
                        detail: "\(error) (syntax: docs/mock.md)"
                    ).response, request: request))
        }
        mock.journal.append(Self.journalEntry(request, reply: reply, session: session ?? nil, decision: decision))
        guard decision.latencyMs > 0 else { return reply }
        let delayed = reply
        let queue = mock.timerQueue
        let deadline = DispatchTime.now() + .milliseconds(decision.latencyMs)
        return .deferred { promise in queue.asyncAfter(deadline: deadline) { promise.complete(with: delayed) } }
    }

    /// Serves `request` and applies the decided fault.
    private func simulate(_ decision: FaultDecision, request: HTTPRequest) throws -> HTTPReply {
        switch decision.fault {
        case .reset:
            return .fault(.reset)
        case .empty:
            return .fault(.closeWithoutResponse)
        case .status(let code, let retryAfter):
            var response = ProblemDetails(
                status: code, code: "simulated_fault", title: "Simulated fault",
                detail: "The mock backend's network simulation answered \(code).", path: nil
            ).response
            if let retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
            response.headers.set("X-Flow-Mock-Applied", decision.labels.joined(separator: "; "))
            return .response(Self.stamped(response, request: request))
        case .truncate, .drip, nil:
            let reply = try serve(request)
            guard case .response(var response) = reply else { return reply }
            if !decision.isNone { response.headers.set("X-Flow-Mock-Applied", decision.labels.joined(separator: "; ")) }
            switch decision.fault {
            case .truncate(let bytes): return .fault(.truncate(response, afterBytes: bytes))
            case .drip(let bytes, let interval):
                return .fault(.drip(response, chunkSize: bytes, interval: .milliseconds(interval)))
            default: return .response(response)
            }
        }
    }

    private static func stamped(_ response: HTTPResponse, request: HTTPRequest) -> HTTPResponse {
        var response = response
        response.headers.set("X-Request-ID", RequestID.accept(request.headers["X-Request-ID"]))
        return response
    }

    static func journalEntry(_ request: HTTPRequest, reply: HTTPReply, session: String?, decision: FaultDecision)
        -> JournalEntry
    {
        var response: HTTPResponse?
        switch reply {
        case .response(let answer): response = answer
        case .fault(.truncate(let answer, _)), .fault(.drip(let answer, _, _)): response = answer
        default: response = nil
        }
        var problemCode: String?
        var detail: String?
        if let response, response.headers["Content-Type"] == ProblemDetails.mediaType,
            case .bytes(let bytes) = response.body, let problem = try? JSONParser().parse(bytes)
        {
            problemCode = problem["code"]?.stringValue
            detail = problem["detail"]?.stringValue
        }
        let headers = request.headers.map { field in
            (name: field.name, value: field.name.lowercased() == "authorization" ? "(redacted)" : field.value)
        }
        return JournalEntry(
            time: Date().timeIntervalSince1970, method: request.method.rawValue, target: request.target,
            headers: headers, bodyBytes: request.body.count,
            bodyDigest: request.body.isEmpty ? "" : Crypto.hex(Crypto.sha256(request.body).prefix(8)),
            status: response.map { outcome(of: $0, for: request).0 } ?? 0,
            session: session, scenario: response?.headers[MockRequestContext.scenarioHeader],
            faults: decision.labels, problemCode: problemCode, detail: detail)
    }

    // MARK: Scenario- and session-aware routes

    func addMockRoutes(to router: inout Router) {
        router.get("/v1/pages/{pageID}", route("page", serveMockPage))
        router.get("/v1/pages/{pageID}/next", route("nextPage", serveMockNextPage))
        router.post("/v1/pages/{pageID}/next", route("nextPage", serveMockNextPage))
        router.post("/v1/actions/{name}", route("action", serveMockAction))
        addAdminRoutes(to: &router)
    }

    /// `GET /v1/pages/{pageID}` in mock mode: the chosen scenario, else the session's copy, else the page.
    func serveMockPage(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let mock else { return try servePage(request) }
        let snapshot = snapshot
        let context = try MockRequestContext(request)
        let pageID = request.pathParameters["pageID"] ?? ""
        let base = try lookUp(pageID, in: snapshot.catalog)
        let session = context.session.flatMap { mock.sessions.session($0) }
        var parameters: [String: String] = [:]
        for item in request.queryItems where item.name != MockRequestContext.scenarioQuery {
            parameters[item.name] = item.value
        }
        var headers: HTTPFields = [:]
        let explicit = context.scenario ?? session?.scenarios[pageID]
        if let name = explicit ?? session?.scenarios["*"] {
            if let scenario = snapshot.catalog.scenarios[pageID]?[name] {
                switch scenario.content {
                case .problem(let problem):
                    var response = problem.response
                    response.headers.set(MockRequestContext.scenarioHeader, name)
                    return response
                case .page(let page):
                    let variant = try ClientVariant.of(request, page: page)
                    headers = Self.merged(page.responseHeaders(locale: variant.locale), headers)
                    headers.set(MockRequestContext.scenarioHeader, name)
                    headers.set("Cache-Control", "private, no-cache")
                    return .prepared(
                        variantInitialBody(page, parameters: parameters, variant: variant, mock: mock), headers: headers
                    )
                }
            }
            if explicit != nil { headers.set("X-Flow-Scenario-Missing", name) }
        }
        if let document = session?.documents[pageID], document.baseVersion == base.version {
            let variant = try ClientVariant.of(request, page: document.page)
            headers = Self.merged(document.page.responseHeaders(locale: variant.locale), headers)
            headers.set("Cache-Control", "private, no-cache")
            return .prepared(
                variantInitialBody(document.page, parameters: parameters, variant: variant, mock: mock),
                headers: headers)
        }
        let variant = try ClientVariant.of(request, page: base)
        let body =
            variant.isPlain
            ? snapshot.initialBody(base, parameters: parameters)
            : snapshot.resolvedInitialBody(base, parameters: parameters, variant: variant)
        return .prepared(body, headers: Self.merged(base.responseHeaders(locale: variant.locale), headers))
    }

    /// `base` with the fields of `extra` added (an `extra` field replaces a same-named one).
    static func merged(_ base: HTTPFields, _ extra: HTTPFields) -> HTTPFields {
        var fields = base
        for field in extra { fields.set(field.name, field.value) }
        return fields
    }

    /// `/v1/pages/{pageID}/next` in mock mode: the cursor's content version picks the variant it came from (the
    /// page, a scenario or a session copy), so pagination needs no scenario or session on the request.
    func serveMockNextPage(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let mock else { return try serveNextPage(request) }
        let snapshot = snapshot
        let pageID = request.pathParameters["pageID"] ?? ""
        let session = try MockRequestContext.sessionID(request)  // a malformed one is a 400, as on the first page
        let cursor = try verifiedCursor(request, pageID: pageID)
        let base = try lookUp(pageID, in: snapshot.catalog)
        if cursor.version == base.version {
            guard let body = snapshot.chunkBody(base, cursor: cursor) else { throw Self.pastTheEnd }
            return .prepared(body, headers: base.responseHeaders(locale: cursor.locale))
        }
        var variants: [CatalogPage] = []
        if let session = session.flatMap({ mock.sessions.session($0) }),
            let document = session.documents[pageID], document.baseVersion == base.version
        {
            variants.append(document.page)
        }
        for scenario in (snapshot.catalog.scenarios[pageID] ?? [:]).values {
            if case .page(let page) = scenario.content { variants.append(page) }
        }
        guard let page = variants.first(where: { $0.version == cursor.version }) else {
            throw ProblemDetails.cursorExpired
        }
        var headers = page.responseHeaders(locale: cursor.locale)
        headers.set("Cache-Control", "private, no-cache")
        if cursor.profile != nil || cursor.locale != nil || page.strings != nil {
            // Resolved for the cursor's client variant; computed per request (mock mode only).
            guard let variant = ClientVariant.of(cursor),
                let body = CatalogSnapshot.chunk(page, cursor: cursor, variant: variant, cursors: cursors)
            else { throw Self.pastTheEnd }
            return .prepared(body, headers: headers)
        }
        let key = MockState.BodyKey(version: page.version, position: cursor.position, parameters: cursor.parameters)
        guard page.chunk(at: cursor.position, postback: { _ in "" }) != nil else { throw Self.pastTheEnd }
        let body = mock.body(key) {
            let chunk = page.chunk(at: cursor.position) { position in
                var next = cursor
                next.position = position
                return cursors.encode(next)
            }!
            return CatalogSnapshot.prepare(.nextPage(chunk))
        }
        return .prepared(body, headers: headers)
    }

    static let pastTheEnd = ProblemDetails.invalidCursor("the postback points past the end of the page")

    /// `POST /v1/actions/{name}` in mock mode: the declared response; with a session, the action's mutations are
    /// also applied to the session's copy of the page that declares it.
    func serveMockAction(_ request: HTTPRequest) throws -> HTTPResponse {
        let response = try serveAction(request)
        guard let mock, let sessionID = try MockRequestContext.sessionID(request) else { return response }
        let snapshot = snapshot
        guard let action = snapshot.catalog.actions[request.pathParameters["name"] ?? ""],
            let base = snapshot.catalog.pages[action.pageID]
        else { return response }
        mock.sessions.update(sessionID) { session in
            session.actionCount += 1
            var document = session.documents[base.page.id]
            if document?.baseVersion != base.version {
                document = SessionDocument(page: base, baseVersion: base.version)
            }
            guard var current = document else { return }
            let changed = Self.applying(action.response.mutations, to: current.page.page)
            guard changed != current.page.page else { return }
            current.page = CatalogPage(
                page: changed, pageSize: base.pageSize, cacheControl: base.cacheControl,
                actionNames: base.actionNames, file: base.file, strings: base.strings)
            session.documents[base.page.id] = current
        }
        return response
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

    /// The first-load body of a scenario or session copy: cached per content version for plain clients, resolved
    /// per request for a client variant or a localized page (mock mode only).
    func variantInitialBody(_ page: CatalogPage, parameters: [String: String], variant: ClientVariant, mock: MockState)
        -> PreparedBody
    {
        if !variant.isPlain || page.strings != nil {
            return CatalogSnapshot.firstLoad(page, parameters: parameters, variant: variant, cursors: cursors)
        }
        return mock.body(MockState.BodyKey(version: page.version, position: -1, parameters: parameters)) {
            CatalogSnapshot.prepare(
                .page(CatalogSnapshot.initialDocument(page, parameters: parameters, cursors: cursors)))
        }
    }

    // MARK: Reload

    /// Reloads the pages directory: pages and scenarios whose file now has an error keep their last good
    /// version; the new catalog replaces the old one atomically. Errors are logged and kept for
    /// `GET /__admin/status`. A deleted page file keeps being served for a grace period (twice the debounce, at
    /// least 250 ms) and is dropped by a confirming reload, so editors that save by delete-and-recreate never
    /// cause a 404. Without mock mode this only replaces the catalog.
    @discardableResult
    public func reloadPages() -> PageCatalog { reloadPages(confirmingDeletes: false) }

    @discardableResult
    func reloadPages(confirmingDeletes: Bool) -> PageCatalog {
        guard let mock else {
            let fresh = PageCatalog.load(directory: configuration.pages.directory, defaults: configuration.pages)
            let merged = fresh.keepingLastGood(from: catalog).catalog
            replaceCatalog(merged)
            return merged
        }
        return mock.reloadLock.withLock { _ in
            let fresh = PageCatalog.load(directory: configuration.pages.directory, defaults: configuration.pages)
            let merge = fresh.keepingLastGood(from: catalog, keepingDeleted: !confirmingDeletes)
            replaceCatalog(merge.catalog)
            mock.bodies.withLock { $0.removeAll() }
            mock.reloadStatus.withLock { status in
                status.count += 1
                status.lastAt = Date().timeIntervalSince1970
                status.diagnostics = fresh.diagnostics
                status.kept = merge.kept
            }
            for finding in fresh.diagnostics where finding.diagnostic.severity == .error {
                log.write(Self.reloadLogLine(finding, kept: merge.kept.contains(finding.file)))
            }
            log.write(
                "{\"level\":\"info\",\"message\":\"pages reloaded\",\"pages\":\(merge.catalog.pages.count),"
                    + "\"errors\":\(fresh.diagnostics.filter { $0.diagnostic.severity == .error }.count),"
                    + "\"keptLastGood\":\(merge.kept.count),\"pendingDeletion\":\(merge.pendingDeletion.count),"
                    + "\"catalogVersion\":\"\(merge.catalog.version)\"}")
            if !merge.pendingDeletion.isEmpty {
                let grace = max(2 * mock.configuration.debounceMs, 250)
                mock.timerQueue.asyncAfter(deadline: .now() + .milliseconds(grace)) { [weak self] in
                    self?.reloadPages(confirmingDeletes: true)
                }
            }
            return merge.catalog
        }
    }

    static func reloadLogLine(_ finding: FileDiagnostic, kept: Bool) -> String {
        let diagnostic = finding.diagnostic
        return "{\"level\":\"error\",\"message\":\"reload: \(kept ? "serving the last good version" : "not served")\","
            + "\"file\":\(AccessLogLine.quoted(finding.file)),\"path\":\(AccessLogLine.quoted(diagnostic.path.string)),"
            + "\"code\":\(AccessLogLine.quoted(diagnostic.code)),\"detail\":\(AccessLogLine.quoted(diagnostic.message))}"
    }

    /// A watcher that reloads the pages on change, per `mock.watch`; `nil` without mock mode or with `off`.
    func makePageWatcher() -> PageWatcher? {
        guard let mock, mock.configuration.watch != .off else { return nil }
        let watcher = PageWatcher(
            directory: configuration.pages.directory, useInotify: mock.configuration.watch == .auto,
            pollIntervalMs: mock.configuration.pollIntervalMs, debounceMs: mock.configuration.debounceMs
        ) { [weak self] in self?.reloadPages() }
        return watcher
    }
}

extension BFFApplication {
    /// Records how the pages are watched (`inotify+poll`, `poll`) for `GET /__admin/status`.
    func watcherStarted(_ mode: String) {
        mock?.reloadStatus.withLock { $0.watcher = mode }
    }
}
