import HTTPCore
import PageModel

/// One responder of flow-bff's chain, composed in `makeServer` (BFFService.swift): each answers a request with its
/// ``RequestContext`` or hands both to the next one it holds, knowing nothing of the others — CORS, then the mock
/// backend (only in mock mode), then the browser preview (only when it is served), then the application's routes.
protocol ChainResponder: Sendable {
    func respond(to request: consuming HTTPRequest, context: RequestContext) -> HTTPReply
}

/// Where a request enters the chain: HTTPCore's responder, which reads the request's context once and hands both
/// to the first link.
struct EdgeResponder: HTTPResponder {
    let first: any ChainResponder
    /// Whether the context reads the scenario (mock mode).
    let mock: Bool
    /// Starts each request's server span when tracing is on; `nil` (no cost) when it is off.
    var tracer: Tracer? = nil

    func respond(to request: consuming HTTPRequest) throws -> HTTPReply {
        var context = RequestContext(request, mock: mock)
        guard let tracer, let span = tracer.serverSpan(request)
        else { return first.respond(to: request, context: context) }
        context.span = span
        // The span ends with what HTTPCore wrote (status, route), after any other listener of the response.
        let reply = first.respond(to: request, context: context)
        switch consume reply {
        case .response(var response):
            Self.trace(&response, span)
            return .response(response)
        case let reply:
            return reply.mapResponse { response in
                var response = response
                Self.trace(&response, span)
                return response
            }
        }
    }

    /// Makes `span` the observer of `response` (after any other): it names the trace for the access log and ends
    /// when the response has been sent.
    private static func trace(_ response: inout HTTPResponse, _ span: Span) {
        if let previous = response.observer {
            response.observer = HTTPResponseObservers(previous, then: span)
        } else {
            response.observer = span
        }
    }
}

/// Cross-origin browser access (`http.corsOrigins`, ``CORSPolicy``): answers an allowed origin's preflight itself
/// and names the origin on the answers to its requests; anything else passes through untouched.
struct CORSResponder: ChainResponder {
    let policy: CORSPolicy
    let next: any ChainResponder

    func respond(to request: consuming HTTPRequest, context: RequestContext) -> HTTPReply {
        guard let origin = request.headers["Origin"], policy.allows(origin) else {
            return next.respond(to: request, context: context)
        }
        if request.method == .options, request.headers.contains("Access-Control-Request-Method") {
            var response = policy.preflight(origin: origin)
            response.requestID = context.requestID
            response.route = "cors.preflight"
            return .response(response)
        }
        return next.respond(to: request, context: context).mapResponse { CORSPolicy.allowing(origin, $0) }
    }
}

/// A chain's last link: a router whose unmatched requests get the contract's 404 or 405 problem (with a near miss).
struct RoutesResponder: ChainResponder {
    let router: ContextRouter<RequestContext>
    let application: BFFApplication

    func respond(to request: consuming HTTPRequest, context: RequestContext) -> HTTPReply {
        let path = request.path
        do {
            return try router.respond(to: request, context: context)
        } catch {
            return application.unrouted(path: path, context: context, error)
        }
    }
}
