import HTTPCore

/// The responder of the operations listener (`server.adminPort`): `/healthz`, `/readyz` and `/metrics` of the
/// application, and a problem 404 for anything else. It has connections of its own, so probes and scrapes are
/// answered while the public listener is at its connection cap, and `/metrics` stays off the public port.
struct OperationsResponder: HTTPResponder {
    let application: BFFApplication
    let router: Router

    init(application: BFFApplication) {
        self.application = application
        var router = Router()
        application.addOperationalRoutes(to: &router, metrics: true)
        self.router = router
    }

    func respond(to request: consuming HTTPRequest) throws -> HTTPReply {
        let path = request.path
        let headers = request.headers
        do {
            return try router.respond(to: request)
        } catch {
            return application.unrouted(path: path, headers: headers, error)
        }
    }
}
