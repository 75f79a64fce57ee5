import Dispatch
import Foundation
import HTTPCore
import PageModel
import Synchronization

/// Mock mode's state and behaviour in the responder chain (``MockResponder``, composed only when `mock.enabled`):
/// the admin API, the network simulation (latency, faults) and the request journal. Scenarios and session copies
/// are the ``MockPageLookup`` the application's pipeline asks.
final class MockLayer: Sendable {
    unowned let application: BFFApplication
    let mock: MockState
    /// The `Host` values the admin API and the index answer (`mock.allowedHosts`).
    let hosts: HostPolicy
    /// The origins the admin API accepts besides its own (`http.corsOrigins`).
    let cors: CORSPolicy
    /// `mock.journalRedactHeaders`, lowercased.
    let redactedHeaders: Set<String>

    init(application: BFFApplication, mock: MockState) {
        self.application = application
        self.mock = mock
        hosts = HostPolicy(allowedHosts: application.configuration.mock.allowedHosts)
        cors = CORSPolicy(configuration: application.configuration)
        redactedHeaders = Set(mock.configuration.journalRedactHeaders.map { $0.lowercased() })
    }

    var configuration: BFFConfiguration { application.configuration }

    /// Admin requests and the index (`/`) go to the `admin` routes; the preview's own files pass through untouched
    /// (no simulated faults, no journal entries: the page requests the preview sends are ordinary `/v1` requests
    /// and are simulated and journaled like a device's); every other request gets the network simulation its header
    /// or route asks for, is answered by `next`, and is journaled with what was actually sent.
    func respond(
        to request: HTTPRequest, context: RequestContext, admin: ContextRouter<RequestContext>,
        next: any ChainResponder
    ) -> HTTPReply {
        if request.path.hasPrefix("/__admin/") || request.path == "/" {
            return serveAdmin(request, context: context, admin: admin)
        }
        if request.path.hasPrefix(BFFApplication.previewPrefix) { return next.respond(to: request, context: context) }
        var draft = JournalDraft(
            request, session: context.validSession, journal: mock.journal,
            bodyLimit: mock.configuration.journalBodyBytes, redacting: redactedHeaders)
        var context = context
        if application.proxy != nil {
            // The proxy notes what it forwarded and what the contract check found, for this entry.
            context.forwarding = ForwardingNote()
            draft.forwarding = context.forwarding
        }
        var decision = FaultDecision()
        do {
            let header = try request.headers[FlowHeader.mock].map(FaultSpec.parse)
            let spec = FaultPlan.spec(
                header: header, method: request.method.rawValue, path: request.path,
                runtime: sessionRules(of: draft.entry.session) + mock.runtimeRules.withLock { $0 },
                configured: mock.configuration.faults)
            if let spec, !spec.isNone {
                let draw = mock.nextDraw(session: draft.entry.session)
                decision = mock.plan.decide(counter: draw.counter, stream: draw.stream, spec: spec)
            }
        } catch {
            let problem = ProblemDetails(
                .invalidMockHeader, detail: "\(error) (syntax: docs/mock.md)")
            return .response(journaled(answered(problem.makeResponse(), context, route: "mock.header"), draft))
        }
        draft.entry.faults = decision.labels
        let reply = simulate(decision, request: request, context: context, draft: draft, next: next)
        guard decision.latencyMs > 0 else { return reply }
        let queue = mock.timerQueue
        let deadline = DispatchTime.now() + .milliseconds(decision.latencyMs)
        return .deferred { promise in queue.asyncAfter(deadline: deadline) { promise.complete(with: reply) } }
    }

    /// The runtime fault rules of one session (`PUT /__admin/sessions/{id}/faults`), checked before the global ones.
    private func sessionRules(of session: String?) -> [FaultRule] {
        guard let session, let rules = mock.sessions.session(session)?.faultRules else { return [] }
        return rules
    }

    /// Serves `request` with the decided fault applied.
    private func simulate(
        _ decision: FaultDecision, request: HTTPRequest, context: RequestContext, draft: JournalDraft,
        next: any ChainResponder
    ) -> HTTPReply {
        let applied = decision.labels.joined(separator: "; ")
        switch decision.fault {
        case .reset:
            draft.record(status: 0)  // nothing is sent
            return .fault(.reset)
        case .empty:
            draft.record(status: 0)
            return .fault(.closeWithoutResponse)
        case .status(let code, let retryAfter):
            var response = ProblemDetails(
                status: code, code: ProblemCode.simulatedFault.rawValue, title: ProblemCode.simulatedFault.title,
                detail: "The mock backend's network simulation answered \(code).", path: nil
            ).makeResponse()
            if let retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
            response.headers.set(FlowHeader.mockApplied, applied)
            return .response(journaled(answered(response, context, route: "mock.fault"), draft))
        case .truncate, .drip, nil:
            let reply = stubbedAction(request, context) ?? next.respond(to: request, context: context)
            return finishing(reply, decision, applied: applied, draft: draft)
        }
    }

    /// The answer of an action stubbed at runtime (`PUT /__admin/stubs/actions/{name}`), for this request's session
    /// or for all; `nil` when there is none. It replaces the page files' answer and any Swift handler.
    private func stubbedAction(_ request: HTTPRequest, _ context: RequestContext) -> HTTPReply? {
        guard request.method == .post, case .action(let name)? = ProxyTarget(path: request.path),
            let envelope = mock.stubs.action(name, session: context.validSession)
        else { return nil }
        return .response(
            answered(.json(envelope, headers: ["Cache-Control": "no-store"]), context, route: "mock.stub.action"))
    }

    /// `reply` with the decided `truncate` or `drip` applied to its response, `X-Flow-Mock-Applied` set and the
    /// journal draft attached — also when the response is computed later (a provider, a handler, the proxy).
    private func finishing(_ reply: HTTPReply, _ decision: FaultDecision, applied: String, draft: JournalDraft)
        -> HTTPReply
    {
        switch reply {
        case .response(var response):
            if !decision.isNone { response.headers.set(FlowHeader.mockApplied, applied) }
            response = journaled(response, draft)
            switch decision.fault {
            case .truncate(let bytes): return .fault(.truncate(response, afterBytes: bytes))
            case .drip(let bytes, let interval):
                return .fault(.drip(response, chunkSize: bytes, interval: .milliseconds(interval)))
            default: return .response(response)
            }
        case .task(let work):
            return .task { self.finishing(try await work(), decision, applied: applied, draft: draft) }
        default:
            return reply.mapResponse { self.journaled($0, draft) }
        }
    }

    /// `response`, answered by the mock layer itself, with the request id and log context the application's
    /// answers get.
    private func answered(_ response: HTTPResponse, _ context: RequestContext, route: String) -> HTTPResponse {
        var response = response
        response.requestID = context.requestID
        response.route = route
        return response
    }

    /// `response` with the journal draft attached: the entry is recorded with the status actually sent.
    private func journaled(_ response: HTTPResponse, _ draft: JournalDraft) -> HTTPResponse {
        var response = response
        var draft = draft
        draft.entry.scenario = response.headers[FlowHeader.scenario]
        if response.headers["Content-Type"] == ProblemDetails.mediaType, case .bytes(let bytes) = response.body,
            let problem = try? JSONParser().parse(bytes)
        {
            draft.entry.problemCode = problem["code"]?.stringValue
            draft.entry.detail = problem["detail"]?.stringValue
        }
        let limit = mock.configuration.journalBodyBytes
        let body: (bytes: [UInt8], count: Int)
        switch response.body {
        case .bytes(let bytes): body = (Array(bytes.prefix(limit)), bytes.count)
        case .prepared(let prepared): body = prepared.identityPrefix(limit)
        case .empty, .stream: body = ([], 0)
        }
        draft.entry.responseBody = body.bytes
        draft.entry.responseBodyTruncated = body.count > limit
        let entry = draft
        response.onSent = { sent in entry.record(status: sent.status, responseBytes: sent.bodyBytes) }
        return response
    }
}

/// Mock mode in the responder chain: its admin routes, built once from the ``MockLayer`` they call, and the link
/// after it.
struct MockResponder: ChainResponder {
    let layer: MockLayer
    let admin: ContextRouter<RequestContext>
    let next: any ChainResponder

    init(layer: MockLayer, next: any ChainResponder) {
        self.layer = layer
        admin = layer.makeAdminRouter()
        self.next = next
    }

    func respond(to request: consuming HTTPRequest, context: RequestContext) -> HTTPReply {
        layer.respond(to: request, context: context, admin: admin, next: next)
    }
}
