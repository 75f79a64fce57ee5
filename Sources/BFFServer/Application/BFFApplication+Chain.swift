import HTTPCore

/// The responder chains the server's listeners run, each link knowing only the next (Application/ResponderChain.swift).
extension BFFApplication {
    /// The public listener's chain: CORS (when an origin is allowed) → the mock backend (mock mode) → the proxy
    /// (when `proxy.upstream` is set) → the browser preview (when served) → the application's routes.
    func publicResponder() -> EdgeResponder {
        var chain: any ChainResponder = RoutesResponder(router: makeRouter(), application: self)
        if configuration.servesPreview { chain = PreviewResponder(application: self, next: chain) }
        if let proxy { chain = ProxyResponder(proxy: proxy, application: self, next: chain) }
        if let mock { chain = MockResponder(layer: MockLayer(application: self, mock: mock), next: chain) }
        let cors = CORSPolicy(configuration: configuration)
        if !cors.isEmpty { chain = CORSResponder(policy: cors, next: chain) }
        return EdgeResponder(first: chain, mock: mock != nil, tracer: tracer)
    }

    /// The operations listener's chain (`server.adminPort`): `/healthz`, `/readyz` and `/metrics`, and a problem 404
    /// for anything else. It has connections of its own, so probes and scrapes are answered while the public
    /// listener is at its connection cap, and `/metrics` stays off the public port.
    func operationsResponder() -> EdgeResponder {
        var router = ContextRouter<RequestContext>()
        addOperationalRoutes(to: &router, metrics: true)
        return EdgeResponder(first: RoutesResponder(router: router, application: self), mock: false)
    }
}
