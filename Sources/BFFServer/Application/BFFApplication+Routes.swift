import HTTPCore
import PageModel

/// The public routes: the contract's (docs/contract.md) and the operational ones, each handler a route group's
/// (``PageRoutes``, ``ActionRoutes``, ``OperationalRoutes``) wrapped by ``route(_:_:)``.
extension BFFApplication {
    /// The public routes (without the preview's, PreviewResponder.swift).
    func makeRouter() -> ContextRouter<RequestContext> {
        var router = ContextRouter<RequestContext>()
        router.get(
            ContractRoute.pageIndex.template,
            route(ContractRoute.pageIndex.name) { _, _ in .now(self.operationalRoutes.pageIndex()) })
        router.get(ContractRoute.page.template, route(ContractRoute.page.name, pageRoutes.servePage))
        router.get(ContractRoute.nextPage.template, route(ContractRoute.nextPage.name, pageRoutes.serveNextPage))
        router.post(ContractRoute.nextPage.template, route(ContractRoute.nextPage.name, pageRoutes.serveNextPage))
        router.post(ContractRoute.action.template, route(ContractRoute.action.name, actionRoutes.serveAction))
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
        router.get(
            ContractRoute.healthz.template,
            route(ContractRoute.healthz.name) { _, _ in .now(OperationalRoutes.healthy) })
        router.get(
            ContractRoute.readyz.template,
            route(ContractRoute.readyz.name) { _, _ in try self.operationalRoutes.readiness() })
        if metrics {
            router.get(
                ContractRoute.metrics.template,
                route(ContractRoute.metrics.name) { _, _ in try self.operationalRoutes.metricsText() })
        }
    }
}
