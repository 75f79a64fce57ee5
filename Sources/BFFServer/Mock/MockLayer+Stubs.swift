import HTTPCore
import PageModel

/// Runtime stubs (docs/mock.md, "Runtime stubs"): a UI test puts the page or the action answer it needs while the
/// server runs, for its session (`?session=ID`) or for every request, instead of editing files on disk. A page
/// is checked exactly as a page file is (`PageFile`, then its references against the catalog and the other stubs),
/// an answer as a declared answer is; what fails is a 400 `invalid_stub` whose `diagnostics` give each finding's
/// JSON pointer in the body sent. `POST /__admin/reset` forgets every stub, a session's reset its own.
extension MockLayer {
    func addStubRoutes(to router: inout ContextRouter<RequestContext>) {
        router.get("/__admin/stubs", adminRoute("admin.stubs") { _ in self.adminStubs() })
        router.delete(
            "/__admin/stubs",
            adminRoute("admin.stubs") { request in
                let session = try Self.stubSession(request)
                // The sessions whose data stubs go: their copies of the data are the files' again.
                let stubbedData = self.mock.stubs.dataNamesBySession.filter { session == nil || $0.key == session }
                if self.mock.stubs.removeAll(session: session) { self.application.reloadPages() }
                for (owner, names) in stubbedData { self.restoreData(names, session: owner) }
                return self.adminStubs()
            })
        router.put("/__admin/stubs/pages/{pageID}", adminRoute("admin.stubs.page", adminPutPage))
        router.delete(
            "/__admin/stubs/pages/{pageID}",
            adminRoute("admin.stubs.page") { request in
                let pageID = request.pathParameters["pageID"] ?? ""
                self.mock.stubs.setPage(nil, .init(name: pageID, session: try Self.stubSession(request)))
                return self.adminStubs()
            })
        router.put("/__admin/stubs/data/{name}", adminRoute("admin.stubs.data", adminPutData))
        router.delete(
            "/__admin/stubs/data/{name}",
            adminRoute("admin.stubs.data") { request in
                let name = request.pathParameters["name"] ?? ""
                let session = try Self.stubSession(request)
                self.mock.stubs.setData(nil, .init(name: name, session: session))
                if let session { self.restoreData([name], session: session) } else { self.application.reloadPages() }
                return self.adminStubs()
            })
        router.put("/__admin/stubs/actions/{name}", adminRoute("admin.stubs.action", adminPutAction))
        router.delete(
            "/__admin/stubs/actions/{name}",
            adminRoute("admin.stubs.action") { request in
                let name = request.pathParameters["name"] ?? ""
                self.mock.stubs.setAction(nil, .init(name: name, session: try Self.stubSession(request)))
                return self.adminStubs()
            })
    }

    /// `GET /__admin/stubs`: every stub, `{"pages": [{"id", "session"?}], "actions": [{"name", "session"?}]}`.
    func adminStubs() -> HTTPResponse {
        func list(_ keys: [MockStubs.Key], _ member: String) -> JSONValue {
            .array(
                keys.map { key in
                    var object = JSONObject()
                    object[member] = .string(key.name)
                    if let session = key.session { object["session"] = .string(session) }
                    return .object(object)
                })
        }
        let keys = mock.stubs.keys
        return Self.adminJSON([
            "pages": list(keys.pages, "id"), "actions": list(keys.actions, "name"), "data": list(keys.data, "name"),
        ])
    }

    /// `PUT /__admin/stubs/data/{name}[?session=ID]` with any JSON document: used instead of `data/<name>.json`, for
    /// the session (its copy of the data, and every page made from the document, made again for it) or for every
    /// request (the pages are loaded again with it). Every page that reads the document is made with it first; a
    /// page it would break is a 400 `invalid_stub` with that page's findings, and nothing changes.
    func adminPutData(_ request: HTTPRequest) throws -> HTTPResponse {
        let name = request.pathParameters["name"] ?? ""
        guard PageID.isValid(name) else {
            throw ProblemDetails.invalidRequest(.root, "Data document names match \(PageID.pattern), not \"\(name)\".")
        }
        let session = try Self.stubSession(request)
        var document = try application.bodyReader.read(request)
        // A `$generate` document is made as a data file's is.
        var generatorFindings: [Diagnostic] = []
        if let generated = FakeData.generated(
            document, imageURL: configuration.pages.fakeImageURL, diagnostics: &generatorFindings)
        {
            document = generated
        }
        guard !generatorFindings.containsErrors else {
            throw Self.invalidStub("data document", name, generatorFindings)
        }
        let snapshot = application.snapshot
        let catalog = snapshot.catalog
        let base = catalog.data.overlaid(session.map { mock.stubs.data(session: $0) } ?? [:])
        let candidate = base.overlaid([name: document])
        var findings: [Diagnostic] = []
        for page in catalog.pages.values.sorted(by: { $0.page.id < $1.page.id }) {
            guard let generator = page.generator, generator.documents.contains(name) else { continue }
            for finding in generator.file(with: candidate).diagnostics where finding.severity == .error {
                var located = finding
                located.message = "\(page.file): \(finding.message)"
                findings.append(located)
            }
        }
        guard !findings.containsErrors else { throw Self.invalidStub("data document", name, findings) }
        mock.stubs.setData(document, .init(name: name, session: session))
        if let session {
            let stubbed = mock.stubs.data(session: session)
            mock.sessions.update(session) { state in
                _ = MockPageLookup.changingData(of: &state, stubbed: stubbed, snapshot: snapshot) {
                    $0.overlaid([name: document])
                }
            }
        } else {
            application.reloadPages()
        }
        return adminStubs()
    }

    /// The session's copy of the data documents `names` back to what every request gets, its pages made again.
    func restoreData(_ names: Set<String>, session: String) {
        let snapshot = application.snapshot
        let stubbed = mock.stubs.data(session: session)
        mock.sessions.update(session) { state in
            _ = MockPageLookup.changingData(of: &state, stubbed: stubbed, snapshot: snapshot) { documents in
                var restored = documents
                for name in names {
                    if let original = snapshot.catalog.data.documents[name] {
                        restored.set(name, original)
                    }
                }
                return restored
            }
        }
    }

    /// `PUT /__admin/stubs/pages/{pageID}[?session=ID]` with a page file (`pages/README.md`; `server.actions` are
    /// stubbed one by one instead): served for `GET /v1/pages/{pageID}` and its chunks, before the page files,
    /// scenarios and session copies.
    func adminPutPage(_ request: HTTPRequest) throws -> HTTPResponse {
        let pageID = request.pathParameters["pageID"] ?? ""
        guard PageID.isValid(pageID) else { throw ProblemDetails.invalidPageID(pageID) }
        let session = try Self.stubSession(request)
        _ = try application.bodyReader.read(request)  // media type, size and JSON syntax, as for any admin body
        let catalog = application.catalog
        let file = PageFile(
            bytes: request.body, file: "stub:\(pageID)", expectedID: pageID, defaults: configuration.pages,
            catalog: catalog.sources.catalog, data: catalog.data)
        var findings = file.diagnostics
        if !file.declaredActionNames.isEmpty {
            findings.append(
                .error(
                    "unsupported_in_stub", "/server/actions",
                    "a stub page declares no actions: stub each answer with PUT /__admin/stubs/actions/{name}"))
        }
        let pages = Set(catalog.pageIDs).union(mock.stubs.pageIDs).union([pageID])
        let actions = Set(catalog.actions.keys).union(mock.stubs.actionNames)
        findings += file.references.compactMap {
            $0.diagnostic(pages: pages, actionNames: actions, remote: configuration.pages.referencesMayBeRemote)
        }
        guard let page = file.page, !findings.containsErrors else { throw Self.invalidStub("page", pageID, findings) }
        mock.stubs.setPage(page, .init(name: pageID, session: session))
        return adminStubs()
    }

    /// `PUT /__admin/stubs/actions/{name}[?session=ID]` with an `actionResponse` envelope: the answer to
    /// `POST /v1/actions/{name}`, instead of the page files' and any Swift handler's. It is sent as it is, to any
    /// widget (no request check), and does not change a session's copy of the page.
    func adminPutAction(_ request: HTTPRequest) throws -> HTTPResponse {
        let name = request.pathParameters["name"] ?? ""
        guard ActionName.isValid(name) else {
            throw ProblemDetails.invalidRequest(.root, "Action names match \(ActionName.pattern), not \"\(name)\".")
        }
        let session = try Self.stubSession(request)
        let json = try application.bodyReader.read(request)
        var findings = ActionRoutes.diagnostics(of: json)
        // The document's shape (docs/openapi.json, ActionResponseEnvelope), stricter than a client's lenient decoder:
        // what the server sends as it is must not lean on that leniency (`"effects": null`).
        for member in ["mutations", "effects"] where json[member] != nil && json[member]?.arrayValue == nil {
            findings.append(.error("invalid_envelope", JSONPointer.root / member, "\(member) is an array"))
        }
        guard !findings.containsErrors else { throw Self.invalidStub("action answer", name, findings) }
        mock.stubs.setAction(JSONWriter().write(json), .init(name: name, session: session))
        return adminStubs()
    }

    /// The `session` query parameter: the session a stub is for; absent for every request.
    private static func stubSession(_ request: HTTPRequest) throws -> String? {
        guard let session = request.queryItem("session") else { return nil }
        guard SessionID.isValid(session) else {
            throw ProblemDetails(.invalidSession, detail: "Session ids match \(SessionID.pattern).")
        }
        return session
    }

    private static func invalidStub(_ kind: String, _ name: String, _ findings: [Diagnostic]) -> ProblemDetails {
        let errors = findings.filter { $0.severity == .error }
        let first = errors.first.map { " The first: \($0.path.string): \($0.code): \($0.message)" } ?? ""
        return ProblemDetails(
            .invalidStub,
            detail:
                "The \(kind) \(name) has \(errors.count) error\(errors.count == 1 ? "" : "s") a page file could not hold.\(first)",
            diagnostics: findings)
    }
}
