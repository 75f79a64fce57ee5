import HTTPCore
import PageModel

/// The proxy's admin routes (mock mode with `proxy.upstream` set; docs/proxy.md, "Switching a page"): what is
/// forwarded, and a page switched between its local file and the upstream while the server runs.
extension MockLayer {
    /// Always routed, as the OpenAPI document says: `GET` answers `{"enabled": false}` without a proxy (so the
    /// preview can ask), a switch is then a 400 naming the missing `proxy.upstream`.
    func addProxyRoutes(to router: inout ContextRouter<RequestContext>) {
        router.get("/__admin/proxy", adminRoute("admin.proxy") { _ in self.adminProxy() })
        router.put("/__admin/proxy/pages/{pageID}", adminRoute("admin.proxy.page", adminSetPageSource))
        router.delete(
            "/__admin/proxy/pages/{pageID}",
            adminRoute("admin.proxy.page") { request in
                let pageID = try Self.proxiedPageID(request)
                try self.runningProxy().setSource(nil, for: pageID)
                return self.adminProxy()
            })
    }

    /// `GET /__admin/proxy`: the upstream, the patterns, where each local page is served from, and the runtime
    /// choices.
    func adminProxy() -> HTTPResponse {
        guard let proxy = application.proxy else { return Self.adminJSON(["enabled": false]) }
        let choices = proxy.sources
        var pages = JSONObject()
        for pageID in Set(application.catalog.pageIDs).union(choices.keys).sorted() {
            let local = application.servesLocally(.page(pageID))
            let source = choices[pageID] ?? (local ? .local : .upstream)
            pages[pageID] = [
                "source": .string(source == .local && local ? "local" : "upstream"),
                "localFile": .bool(application.catalog.pages[pageID] != nil),
                "local": .bool(local),
                "switched": .bool(choices[pageID] != nil),
            ]
        }
        let configuration = proxy.configuration
        return Self.adminJSON([
            "enabled": true,
            "upstream": .string(configuration.upstream),
            "via": .string(proxy.via),
            "include": .array(configuration.include.map { .string($0) }),
            "exclude": .array(configuration.exclude.map { .string($0) }),
            "recording": configuration.recordDirectory.isEmpty ? .null : .string(configuration.recordDirectory),
            "pages": .object(pages),
        ])
    }

    /// `PUT /__admin/proxy/pages/{pageID}` with `{"source": "upstream" | "local"}`: serves the page from there
    /// until `DELETE` or a reset. `local` needs a local page file or provider (else 400 naming the page).
    func adminSetPageSource(_ request: HTTPRequest) throws -> HTTPResponse {
        let pageID = try Self.proxiedPageID(request)
        let proxy = try runningProxy()
        guard case .object(let body) = try application.bodyReader.read(request),
            let name = body["source"]?.stringValue, body.members.count == 1
        else { throw ProblemDetails.invalidRequest(.root, "The body is {\"source\": \"upstream\" | \"local\"}.") }
        guard let source = Proxy.Source(rawValue: name) else {
            throw ProblemDetails.invalidRequest("/source", "source is \"upstream\" or \"local\", not \"\(name)\".")
        }
        if source == .local, !application.servesLocally(.page(pageID)) {
            throw ProblemDetails.invalidRequest(
                "/source", "There is no local page file or provider for \"\(pageID)\" to serve.")
        }
        proxy.setSource(source, for: pageID)
        return adminProxy()
    }

    /// The proxy, or 400 when this server has none.
    private func runningProxy() throws -> Proxy {
        guard let proxy = application.proxy else {
            throw ProblemDetails.invalidRequest(
                .root, "This server forwards nothing: start it with --upstream URL (proxy.upstream) to switch pages.")
        }
        return proxy
    }

    private static func proxiedPageID(_ request: HTTPRequest) throws -> String {
        let pageID = request.pathParameters["pageID"] ?? ""
        guard PageID.isValid(pageID) else { throw ProblemDetails.invalidPageID(pageID) }
        return pageID
    }
}
