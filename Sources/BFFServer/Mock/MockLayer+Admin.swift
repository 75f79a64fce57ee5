import Foundation
import HTTPCore
import PageModel
import Synchronization

/// The admin API under `/__admin` (mock mode only; `docs/mock.md`, `docs/openapi.json`). Matched on the raw,
/// undecoded path, so no encoding of a public path reaches it; answered to loopback peers, or to peers with the
/// configured bearer token, for allowed `Host` values (``HostPolicy``), never to a cross-site page, and for a
/// state-changing call only with a field that needs a CORS preflight (``AdminAccess``).
extension MockLayer {

    /// Answers `/__admin/…` through the admin routes (not journaled, not simulated).
    func serveAdmin(_ request: HTTPRequest, context: RequestContext, admin: ContextRouter<RequestContext>)
        -> HTTPReply
    {
        do {
            return try admin.respond(to: request, context: context)
        } catch {
            return application.unrouted(path: request.path, context: context, error)
        }
    }

    /// The admin routes and the index, calling this layer.
    func makeAdminRouter() -> ContextRouter<RequestContext> {
        var router = ContextRouter<RequestContext>()
        // The index is for anyone who can reach the server, like the pages it lists (MockLayer+Index.swift).
        router.get(
            "/",
            application.route("mock.index") { request, _ in
                try self.hosts.check(request)
                return .now(self.serveIndex(request))
            })
        router.get("/__admin/status", adminRoute("admin.status") { _ in self.adminStatus() })
        router.post(
            "/__admin/reload",
            adminRoute("admin.reload") { _ in
                self.application.reloadPages()
                return self.adminStatus()
            })
        router.post("/__admin/reset", adminRoute("admin.reset", adminReset))
        router.get("/__admin/scenarios", adminRoute("admin.scenarios") { _ in self.adminScenarios() })
        router.get("/__admin/faults", adminRoute("admin.faults") { _ in self.adminFaults() })
        router.put("/__admin/faults", adminRoute("admin.faults", adminSetFaults))
        router.delete(
            "/__admin/faults",
            adminRoute("admin.faults") { _ in
                self.mock.runtimeRules.withLock { $0 = [] }
                return self.adminFaults()
            })
        router.get("/__admin/sessions", adminRoute("admin.sessions") { _ in self.adminSessions() })
        router.get("/__admin/sessions/{sessionID}", adminRoute("admin.session", adminSession))
        router.put("/__admin/sessions/{sessionID}", adminRoute("admin.session", adminSetSession))
        router.delete("/__admin/sessions/{sessionID}", adminRoute("admin.session", adminResetSession))
        router.get("/__admin/sessions/{sessionID}/faults", adminRoute("admin.session.faults", adminSessionFaults))
        router.put("/__admin/sessions/{sessionID}/faults", adminRoute("admin.session.faults", adminSetSessionFaults))
        router.delete(
            "/__admin/sessions/{sessionID}/faults", adminRoute("admin.session.faults", adminResetSessionFaults))
        router.get("/__admin/journal", adminRoute("admin.journal", adminJournal))
        router.get("/__admin/journal/count", adminRoute("admin.journal.count", adminJournalCount))
        router.delete(
            "/__admin/journal",
            adminRoute("admin.journal") { _ in
                self.mock.journal.clear()
                return Self.adminJSON(["cleared": true])
            })
        addProxyRoutes(to: &router)
        addStubRoutes(to: &router)
        for method in [HTTPMethod.get, .post, .put, .patch, .delete, .options] {
            router.add(method, "/__admin/echo", adminRoute("admin.echo") { Self.echo($0) })
        }
        return router
    }

    /// Labels an admin handler's route and refuses requests naming another host, peers that may not use the admin
    /// API, cross-site pages and state-changing calls a web page could send without a preflight.
    func adminRoute(_ name: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse)
        -> ContextRouter<RequestContext>.Handler
    {
        application.route(name) { request, _ in
            try self.hosts.check(request)
            try AdminAccess.check(request, token: self.configuration.mock.adminToken, cors: self.cors)
            return .now(try handler(request))
        }
    }

    static func adminJSON(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        .json(JSONWriter().write(value), status: status, headers: ["Cache-Control": "no-store"])
    }

    static func time(_ seconds: Double) -> JSONValue {
        .string(Date(timeIntervalSince1970: seconds).formatted(.iso8601))
    }

    // MARK: Status, reload, reset

    func adminStatus() -> HTTPResponse {
        let catalog = application.catalog
        let reload = application.reload.status.withLock { $0 }
        let sessions = mock.sessions.statistics
        let journal = mock.journal.entries(limit: 0)
        let errors = reload.diagnostics.filter { $0.diagnostic.severity == .error }
        let diagnostics: [JSONValue] = reload.diagnostics.map { finding in
            var object = finding.diagnostic.json.objectValue ?? JSONObject()
            object["file"] = .string(finding.file)
            if let position = finding.position {
                object["line"] = .number(Double(position.line))
                object["column"] = .number(Double(position.column))
            }
            return .object(object)
        }
        return Self.adminJSON([
            "mock": true,
            "catalogVersion": .string(catalog.version),
            "directory": .string(configuration.pages.directory),
            "pages": .array(catalog.pageIDs.map { .string($0) }),
            "actions": .number(Double(catalog.actions.count)),
            "scenarios": .number(Double(catalog.scenarios.values.reduce(0) { $0 + $1.count })),
            "reload": [
                "count": .number(Double(reload.count)),
                "lastAt": Self.time(reload.lastAt),
                "watch": .string(reload.watcher),
                "errors": .number(Double(errors.count)),
                "keptLastGood": .array(reload.kept.map { .string($0) }),
                "diagnostics": .array(diagnostics),
            ],
            "simulation": [
                "seed": .number(Double(mock.plan.seed)),
                "counter": .number(Double(mock.counter.load(ordering: .relaxed))),
                "rules": .number(Double(mock.runtimeRules.withLock { $0.count } + mock.configuration.faults.count)),
            ],
            "sessions": [
                "count": .number(Double(sessions.count)), "cap": .number(Double(mock.configuration.sessionCap)),
                "evicted": .number(Double(sessions.evicted)), "expired": .number(Double(sessions.expired)),
            ],
            "journal": [
                "capacity": .number(Double(mock.journal.capacity)), "count": .number(Double(mock.journal.count)),
                "recorded": .number(Double(journal.recorded)), "dropped": .number(Double(journal.dropped)),
            ],
        ])
    }

    /// `POST /__admin/reset[?session=ID]`: every session (or one), runtime fault rules, the journal and the
    /// simulation's sequences (so the seed replays from the start) — or one session and its sequence.
    func adminReset(_ request: HTTPRequest) throws -> HTTPResponse {
        if let session = request.queryItem("session") {
            return Self.adminJSON(["reset": .string(session), "existed": .bool(mock.forget(session: session))])
        }
        mock.sessions.removeAll()
        mock.runtimeRules.withLock { $0 = [] }
        application.proxy?.resetSources()
        if mock.stubs.removeAll() { application.reloadPages() }  // the files' data again
        mock.journal.clear()
        mock.counter.store(0, ordering: .relaxed)
        mock.sessionDraws.withLock { $0.removeAll() }
        return Self.adminJSON(["reset": "all"])
    }

    // MARK: Scenarios and faults

    func adminScenarios() -> HTTPResponse {
        var pages = JSONObject()
        for (pageID, scenarios) in application.catalog.scenarios.sorted(by: { $0.key < $1.key }) {
            pages[pageID] = .array(scenarios.keys.sorted().map { .string($0) })
        }
        return Self.adminJSON(["pages": .object(pages)])
    }

    func adminFaults() -> HTTPResponse {
        func object(_ rules: [FaultRule]) -> JSONValue {
            .object(JSONObject(rules.map { JSONObject.Member(key: $0.pattern, value: .string($0.spec.description)) }))
        }
        let runtime = mock.runtimeRules.withLock { $0 }
        var answer = JSONObject()
        answer["seed"] = .number(Double(mock.plan.seed))
        answer["counter"] = .number(Double(mock.counter.load(ordering: .relaxed)))
        answer["runtime"] = object(runtime)
        answer["configured"] = object(mock.configuration.faults)
        let warnings = application.unmatchedFaultRules(runtime + mock.configuration.faults)
        if !warnings.isEmpty { answer["warnings"] = .array(warnings.map { .string($0) }) }
        return Self.adminJSON(.object(answer))
    }

    /// `PUT /__admin/faults` with `{"<[METHOD ]/path*>": "<spec>", …}` replaces the runtime rules (checked
    /// before the configured ones, in body order).
    func adminSetFaults(_ request: HTTPRequest) throws -> HTTPResponse {
        let rules = try faultRules(request)
        mock.runtimeRules.withLock { $0 = rules }
        warnAboutUnmatched(rules)
        return adminFaults()
    }

    /// Logs a warning for each of `rules` that matches no route (``BFFApplication/unmatchedFaultRules(_:)``) and
    /// returns the messages, for the answer's `warnings`.
    @discardableResult
    func warnAboutUnmatched(_ rules: [FaultRule]) -> [String] {
        let warnings = application.unmatchedFaultRules(rules)
        for warning in warnings { application.log.warning(warning) }
        return warnings
    }

    /// The rules of a `PUT …/faults` body, in body order; a bad pattern (an unknown method) or spec is a 400
    /// naming the member.
    func faultRules(_ request: HTTPRequest) throws -> [FaultRule] {
        guard case .object(let object) = try application.bodyReader.read(request) else {
            throw ProblemDetails.invalidRequest(
                .root, "The body maps route patterns to specs: {\"/v1/pages/*\": \"latency=200ms\"}.")
        }
        var rules: [FaultRule] = []
        for member in object.members {
            guard case .string(let text) = member.value else {
                throw ProblemDetails.invalidRequest(JSONPointer.root / member.key, "The spec is a string.")
            }
            do {
                rules.append(try FaultRule(pattern: member.key, spec: FaultSpec.parse(text)))
            } catch {
                throw ProblemDetails.invalidRequest(JSONPointer.root / member.key, error.message)
            }
        }
        return rules
    }

    // MARK: Sessions

    static func sessionJSON(_ session: MockSession) -> JSONValue {
        var scenarios = JSONObject()
        for (page, name) in session.scenarios.sorted(by: { $0.key < $1.key }) { scenarios[page] = .string(name) }
        return [
            "id": .string(session.id),
            "scenarios": .object(scenarios),
            "changedPages": .array(session.changedPageIDs.map { .string($0) }),
            "actions": .number(Double(session.actionCount)),
            "faults": .object(
                JSONObject(
                    session.faultRules.map { JSONObject.Member(key: $0.pattern, value: .string($0.spec.description)) })),
        ]
    }

    func adminSessions() -> HTTPResponse {
        let statistics = mock.sessions.statistics
        return Self.adminJSON([
            "sessions": .array(mock.sessions.sessions.map(Self.sessionJSON)),
            "count": .number(Double(statistics.count)), "cap": .number(Double(mock.configuration.sessionCap)),
            "evicted": .number(Double(statistics.evicted)), "expired": .number(Double(statistics.expired)),
        ])
    }

    func sessionParameter(_ request: HTTPRequest) throws -> String {
        let id = request.pathParameters["sessionID"] ?? ""
        guard SessionID.isValid(id) else {
            throw ProblemDetails(
                .invalidSession, detail: "Session ids match \(SessionID.pattern).")
        }
        return id
    }

    func adminSession(_ request: HTTPRequest) throws -> HTTPResponse {
        Self.adminJSON(Self.sessionJSON(try existingSession(request)))
    }

    /// The session named by the path, or 404 `unknown_session`.
    private func existingSession(_ request: HTTPRequest) throws -> MockSession {
        let id = try sessionParameter(request)
        guard let session = mock.sessions.session(id) else {
            throw ProblemDetails(
                .unknownSession,
                detail: "There is no session \"\(id)\" (it never sent a request, was reset, or expired).")
        }
        return session
    }

    /// `PUT /__admin/sessions/{id}` with `{"scenarios": {"cart": "empty", "*": "error"}}` creates the session
    /// if needed and replaces its scenario choices (`*` = every page that has that scenario).
    func adminSetSession(_ request: HTTPRequest) throws -> HTTPResponse {
        let id = try sessionParameter(request)
        guard case .object(let body) = try application.bodyReader.read(request),
            body.members.allSatisfy({ $0.key == "scenarios" })
        else {
            throw ProblemDetails.invalidRequest(.root, "The body is {\"scenarios\": {\"<pageID>|*\": \"<scenario>\"}}.")
        }
        var scenarios: [String: String] = [:]
        if let value = body["scenarios"] {
            guard case .object(let object) = value else {
                throw ProblemDetails.invalidRequest("/scenarios", "scenarios maps page ids (or *) to scenario names.")
            }
            let catalog = application.catalog
            for member in object.members {
                let path = JSONPointer("/scenarios") / member.key
                guard case .string(let name) = member.value else {
                    throw ProblemDetails.invalidRequest(path, "A scenario name is a string.")
                }
                if member.key == "*" {
                    guard catalog.scenarios.values.contains(where: { $0[name] != nil }) else {
                        throw Self.unknownScenario(name, path: path, among: catalog.scenarios.values.flatMap(\.keys))
                    }
                } else {
                    guard catalog.pages[member.key] != nil else {
                        throw ProblemDetails.pageNotFound(
                            member.key, suggestion: NearMiss.closest(to: member.key, among: catalog.pages.keys))
                    }
                    guard catalog.scenarios[member.key]?[name] != nil else {
                        throw Self.unknownScenario(
                            name, path: path, among: catalog.scenarios[member.key].map { Array($0.keys) } ?? [])
                    }
                }
                scenarios[member.key] = name
            }
        }
        let session = mock.sessions.update(id) { session in
            session.scenarios = scenarios
            return session
        }
        return Self.adminJSON(Self.sessionJSON(session))
    }

    static func unknownScenario(_ name: String, path: JSONPointer, among names: some Sequence<String>) -> ProblemDetails
    {
        let hint = NearMiss.closest(to: name, among: names).map { " Did you mean \"\($0)\"?" } ?? ""
        return ProblemDetails(
            .unknownScenario,
            detail: "There is no scenario \"\(name)\" here.\(hint) GET /__admin/scenarios lists them.",
            path: path.string)
    }

    /// `GET /__admin/sessions/{id}/faults`: the session's own fault rules; 404 `unknown_session` for a session that
    /// does not exist (never seen, reset or expired), as `GET /__admin/sessions/{id}`.
    func adminSessionFaults(_ request: HTTPRequest) throws -> HTTPResponse {
        let session = try existingSession(request)
        return Self.adminJSON(["session": .string(session.id), "faults": Self.sessionJSON(session)["faults"]!])
    }

    /// `PUT /__admin/sessions/{id}/faults` with `{"<[METHOD ]/path*>": "<spec>", …}`: replaces the session's own
    /// fault rules (creating the session); they apply only to requests of that session, before the global rules.
    func adminSetSessionFaults(_ request: HTTPRequest) throws -> HTTPResponse {
        let id = try sessionParameter(request)
        let rules = try faultRules(request)
        let session = mock.sessions.update(id) { session in
            session.faultRules = rules
            return session
        }
        var answer = JSONObject()
        answer["session"] = .string(id)
        answer["faults"] = Self.sessionJSON(session)["faults"]!
        let warnings = warnAboutUnmatched(rules)
        if !warnings.isEmpty { answer["warnings"] = .array(warnings.map { .string($0) }) }
        return Self.adminJSON(.object(answer))
    }

    /// `DELETE /__admin/sessions/{id}/faults`: the session's requests follow the global rules again.
    func adminResetSessionFaults(_ request: HTTPRequest) throws -> HTTPResponse {
        let id = try sessionParameter(request)
        if mock.sessions.session(id) != nil { mock.sessions.update(id) { $0.faultRules = [] } }
        return Self.adminJSON(["session": .string(id), "faults": .object(JSONObject())])
    }

    /// `DELETE /__admin/sessions/{id}`: forgets the session; its pages are the files' versions again.
    func adminResetSession(_ request: HTTPRequest) throws -> HTTPResponse {
        let id = try sessionParameter(request)
        return Self.adminJSON(["reset": .string(id), "existed": .bool(mock.forget(session: id))])
    }

    // MARK: Journal and echo

    /// `GET /__admin/journal?method=&path=&session=&status=&body.<path>=&after=&limit=`: recent requests that
    /// pass every filter (``JournalQuery``), oldest first.
    func adminJournal(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try JournalQuery(request)
        let page = mock.journal.entries(matching: query, limit: query.limit)
        return Self.adminJSON([
            "capacity": .number(Double(mock.journal.capacity)),
            "count": .number(Double(mock.journal.count)),
            "recorded": .number(Double(page.recorded)),
            "dropped": .number(Double(page.dropped)),
            "entries": .array(page.entries.map(Self.entryJSON)),
        ])
    }

    /// `GET /__admin/journal/count?<filters>`: how many journaled requests pass the filters (a UI test's
    /// "verify"), with the journal's counters so a test can tell that none were dropped.
    func adminJournalCount(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try JournalQuery(request, allowsLimit: false)
        let page = mock.journal.entries(matching: query)
        return Self.adminJSON([
            "count": .number(Double(page.entries.count)),
            "recorded": .number(Double(page.recorded)),
            "dropped": .number(Double(page.dropped)),
        ])
    }

    static func entryJSON(_ entry: JournalEntry) -> JSONValue {
        let value: JSONValue = [
            "sequence": .number(Double(entry.sequence)),
            "time": time(entry.time),
            "method": .string(entry.method),
            "target": .string(entry.target),
            "headers": .array(entry.headers.map { [.string($0.name), .string($0.value)] }),
            "bodyBytes": .number(Double(entry.bodyBytes)),
            "bodySHA256": .string(entry.bodyDigest),
            "status": .number(Double(entry.status)),
            "responseBytes": .number(Double(entry.responseBytes)),
            "faults": .array(entry.faults.map { .string($0) }),
        ]
        var object = value.objectValue!
        if let session = entry.session { object["session"] = .string(session) }
        if let scenario = entry.scenario { object["scenario"] = .string(scenario) }
        if let code = entry.problemCode { object["problem"] = .string(code) }
        if let detail = entry.detail { object["detail"] = .string(detail) }
        if let upstream = entry.upstream {
            object["upstream"] = .string(upstream)
            object["contract"] = .array(entry.contract.map(\.json))
        }
        add(entry.body, truncated: entry.bodyTruncated, as: "body", to: &object)
        add(entry.responseBody, truncated: entry.responseBodyTruncated, as: "responseBody", to: &object)
        return .object(object)
    }

    /// `bytes` as the member `name` (absent when empty): JSON as JSON (when not truncated), other UTF-8 text as a
    /// string, anything else base64 in `<name>Base64`; and `<name>Truncated`.
    private static func add(_ bytes: [UInt8], truncated: Bool, as name: String, to object: inout JSONObject) {
        guard !bytes.isEmpty else { return }
        if !truncated, let json = try? JSONParser().parse(bytes) {
            object[name] = json
        } else if let text = String(validating: bytes, as: UTF8.self) {
            object[name] = .string(text)
        } else {
            object[name + "Base64"] = .string(Data(bytes).base64EncodedString())
        }
        object[name + "Truncated"] = .bool(truncated)
    }

    /// `/__admin/echo` (any method): the request exactly as parsed.
    static func echo(_ request: HTTPRequest) -> HTTPResponse {
        let value: JSONValue = [
            "method": .string(request.method.rawValue),
            "target": .string(request.target),
            "path": .string(request.path),
            "query": request.query.map { .string($0) } ?? .null,
            "version": .string(request.version.description),
            "headers": .array(request.headers.map { [.string($0.name), .string($0.value)] }),
            "trailers": .array(request.trailers.map { [.string($0.name), .string($0.value)] }),
            "bodyBytes": .number(Double(request.body.count)),
            "body": String(validating: request.body, as: UTF8.self).map { .string($0) } ?? .null,
            "bodyBase64": .string(Data(request.body).base64EncodedString()),
        ]
        var object = value.objectValue!
        object["remoteAddress"] = request.remoteAddress.map { .string($0) } ?? .null
        return adminJSON(.object(object))
    }
}
