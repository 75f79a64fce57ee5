import HTTPCore
import PageModel

/// The public routes: the contract's (docs/contract.md) and the operational ones.
extension BFFApplication {
    /// The public routes (without the preview's, PreviewResponder.swift).
    func makeRouter() -> ContextRouter<RequestContext> {
        var router = ContextRouter<RequestContext>()
        router.get(
            ContractRoute.pageIndex.template, route(ContractRoute.pageIndex.name) { _, _ in .now(self.pageIndex()) })
        router.get(ContractRoute.page.template, route(ContractRoute.page.name, servePage))
        router.get(ContractRoute.nextPage.template, route(ContractRoute.nextPage.name, serveNextPage))
        router.post(ContractRoute.nextPage.template, route(ContractRoute.nextPage.name, serveNextPage))
        router.post(ContractRoute.action.template, route(ContractRoute.action.name, serveAction))
        // With an operations listener (`server.adminPort`) `/metrics` is served there only.
        addOperationalRoutes(to: &router, metrics: configuration.server.adminPort == nil)
        router.get(
            ContractRoute.openAPI.template,
            route(ContractRoute.openAPI.name) { _, _ in
                .now(.prepared(OpenAPIDocument.prepared, headers: ["Cache-Control": "no-cache"]))
            })
        return router
    }

    /// `/healthz`, `/readyz` and, when `metrics`, `/metrics`: the public listener's and the operations listener's.
    func addOperationalRoutes(to router: inout ContextRouter<RequestContext>, metrics: Bool) {
        router.get(ContractRoute.healthz.template, route(ContractRoute.healthz.name) { _, _ in .now(Self.healthy) })
        router.get(ContractRoute.readyz.template, route(ContractRoute.readyz.name) { _, _ in try self.readiness() })
        if metrics {
            router.get(
                ContractRoute.metrics.template, route(ContractRoute.metrics.name) { _, _ in try self.metricsText() })
        }
    }

    static let healthy = HTTPResponse.json(Array(#"{"status":"ok"}"#.utf8), headers: ["Cache-Control": "no-store"])

    /// `GET /v1/pages`: the ids of the pages served (page files and providers), sorted, and in mock mode each
    /// page's scenarios — so a contract test (`flow-bff verify --all`) can crawl pages nothing links to.
    func pageIndex() -> HTTPResponse {
        let catalog = snapshot.catalog
        let ids = Set(catalog.pageIDs).union(providers.pageIDs).sorted()
        var index = JSONObject()
        index["pages"] = .array(ids.map { .string($0) })
        if configuration.mock.enabled {
            var scenarios = JSONObject()
            for (pageID, named) in catalog.scenarios.sorted(by: { $0.key < $1.key }) {
                scenarios[pageID] = .array(named.keys.sorted().map { .string($0) })
            }
            index["scenarios"] = .object(scenarios)
        }
        return .json(JSONWriter().write(.object(index)), headers: ["Cache-Control": "no-cache"])
    }

    /// `GET /readyz`: 200 with the catalog's size and version, 503 `not_ready` while starting or draining.
    func readiness() throws -> Answer {
        guard isReady else { throw ProblemDetails.notReady }
        let catalog = snapshot.catalog
        let body = #"{"status":"ready","pages":\#(catalog.pages.count),"catalogVersion":"\#(catalog.version)"}"#
        return .now(.json(Array(body.utf8), headers: ["Cache-Control": "no-store"]))
    }

    /// `GET /metrics`: the Prometheus text format; 404 when `logging.metrics` is off.
    func metricsText() throws -> Answer {
        guard configuration.logging.metrics else { throw HTTPError(.notFound, code: ProblemCode.notFound.rawValue) }
        return .now(
            .bytes(
                Array(metricsRegistry.render().utf8),
                contentType: "text/plain; version=0.0.4; charset=utf-8",
                headers: ["Cache-Control": "no-store"]))
    }
}
