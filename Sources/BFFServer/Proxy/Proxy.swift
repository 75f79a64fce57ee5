import HTTPCore
import PageModel
import Synchronization

/// The proxy in front of a real backend (docs/proxy.md), a link of the responder chain (``ProxyResponder``) after
/// the mock backend — so latency, faults, sessions and the journal apply to forwarded requests too — and before the
/// application's routes. A page, next-page or action request that no local page file, provider, handler or declared
/// answer serves is forwarded to `proxy.upstream` and nowhere else: the URL is the configured base plus the
/// request's path and query; an absolute-form target is refused (`proxy_refused`), the `Host` header is not
/// forwarded, redirects are not followed. Every answer is checked against the contract (``ProxiedAnswerCheck``).
final class Proxy: Sendable {
    /// Where a page is served from when the admin API or the preview chooses (`PUT /__admin/proxy/pages/{id}`).
    enum Source: String, Sendable, Hashable {
        case local, upstream
    }

    let configuration: BFFConfiguration.Proxy
    let client: UpstreamClient
    private let include: [FaultRule]
    private let exclude: [FaultRule]
    private let check: ProxiedAnswerCheck
    /// Whether answers are marked for the mock backend (no client caching past it).
    private let mock: Bool
    private let log: Logger
    /// This proxy's `Via` token, `1.1 flow-bff-` and 8 random hex digits: a request that comes back with it has
    /// looped; one that went through another flow-bff proxy first has not.
    let via: String
    /// Pages switched at runtime, by id.
    private let overrides = Mutex<[String: Source]>([:])
    /// Writes forwarded pages and action answers as page files (`proxy.recordDirectory`), `nil` when off.
    let recorder: ProxyRecorder?
    let findings = LabeledCounter(
        "flow_bff_proxy_contract_findings_total",
        help: "Contract findings in forwarded upstream answers, by route, code and severity.",
        labels: ["route", "code", "severity"])
    let forwarded = LabeledCounter(
        "flow_bff_proxy_requests_total", help: "Requests forwarded to the upstream, by route and outcome.",
        labels: ["route", "outcome"])

    /// - Parameters:
    ///   - metrics: the upstream call metrics `/metrics` serves (the calls appear as upstream `proxy`).
    init(
        configuration: BFFConfiguration.Proxy, pages: BFFConfiguration.Pages, mock: Bool, metrics: UpstreamMetrics,
        log: Logger
    ) {
        self.configuration = configuration
        client = UpstreamClient(
            UpstreamConfiguration(
                name: "proxy", baseURL: configuration.upstream, timeout: .seconds(configuration.timeoutSeconds),
                retries: 1, maximumConcurrentRequests: configuration.maximumConcurrentRequests,
                callTimeout: .seconds(configuration.timeoutSeconds)),
            metrics: metrics)
        include = configuration.include.compactMap { try? FaultRule(pattern: $0, spec: .none) }
        exclude = configuration.exclude.compactMap { try? FaultRule(pattern: $0, spec: .none) }
        check = ProxiedAnswerCheck(pages: pages)
        self.mock = mock
        self.log = log
        via = "1.1 flow-bff-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        recorder =
            configuration.recordDirectory.isEmpty
            ? nil
            : ProxyRecorder(configuration: configuration, pages: pages, log: log)
    }

    var families: [MetricFamily] { [forwarded.family, findings.family] }

    // MARK: Runtime switch

    /// The runtime choices, by page id.
    var sources: [String: Source] { overrides.withLock { $0 } }

    /// Serves `pageID` from `source` from now on (`nil`: as its files say).
    func setSource(_ source: Source?, for pageID: String) {
        overrides.withLock { $0[pageID] = source }
    }

    /// Forgets every runtime choice (`POST /__admin/reset`).
    func resetSources() { overrides.withLock { $0.removeAll() } }

    // MARK: Forwarding

    /// Forwards `request` when it is one this proxy takes; otherwise hands it to `next`.
    /// - Parameter isLocal: whether the application serves the target itself (a page file, provider, handler or
    ///   declared answer).
    func respond(
        to request: consuming HTTPRequest, context: RequestContext, isLocal: (ProxyTarget) -> Bool,
        next: any ChainResponder
    ) -> HTTPReply {
        guard request.target.hasPrefix("/") || request.target == "*" else {
            return .response(
                Self.problem(
                    ProblemDetails(
                        .proxyRefused,
                        detail:
                            "This server forwards only to its configured upstream; send an origin-form request target (/v1/…), not \(request.target.prefix(200))."
                    ), context: context, route: "proxy.refused"))
        }
        guard let target = ProxyTarget(path: request.path), target.allows(request.method),
            ProxyTarget.admits(
                method: request.method.rawValue, path: request.path, include: include, exclude: exclude),
            !serveLocally(target, actionPage: actionPage(of: request, target), isLocal: isLocal)
        else { return next.respond(to: request, context: context) }
        if ProxyTarget.hasLooped(request.headers, token: via) {
            return .response(
                Self.problem(
                    ProblemDetails(
                        .proxyLoop,
                        detail: "The request already passed through this proxy: proxy.upstream points back at it."),
                    context: context, route: target.route))
        }
        var fields = ProxyTarget.forwardedFields(of: request.headers)
        // RFC 9110 § 7.6.3: this proxy's token after the ones the request already carries.
        let via = request.headers.values(for: "Via")
        fields.append(("Via", (via + [self.via]).joined(separator: ", ")))
        // A HEAD goes upstream as a GET: the answer is checked like the GET's, and HTTPCore sends its headers with
        // the body's true Content-Length and no body.
        let exchange = Exchange(
            target: target, method: request.method == .head ? "GET" : request.method.rawValue,
            origin: request.query.map { request.path + "?" + $0 } ?? request.path,
            body: request.body.isEmpty ? nil : request.body, fields: fields)
        let trace = context.span?.traceContext ?? TraceContext(headers: request.headers)
        return .task { .response(await self.forward(exchange, context: context, trace: trace)) }
    }

    /// Whether `target` is served by the application: the runtime choice for its page — for an action, the page the
    /// request names (its `pageID`), so the answer's mutations meet the document the app shows — else whether it
    /// has a local answer.
    private func serveLocally(_ target: ProxyTarget, actionPage: String?, isLocal: (ProxyTarget) -> Bool) -> Bool {
        if let pageID = target.pageID ?? actionPage, let source = overrides.withLock({ $0[pageID] }) {
            return source == .local && isLocal(target)
        }
        return isLocal(target)
    }

    /// The `pageID` an action request's body names — parsed only while some page is switched, so an action request
    /// is not parsed twice for nothing.
    private func actionPage(of request: borrowing HTTPRequest, _ target: ProxyTarget) -> String? {
        guard case .action = target, !request.body.isEmpty, !overrides.withLock({ $0.isEmpty }) else { return nil }
        return (try? JSONParser().parse(request.body))?["pageID"]?.stringValue
    }

    /// One request to forward, as it goes to the upstream.
    struct Exchange: Sendable {
        var target: ProxyTarget
        var method: String
        /// The origin-form target: the request's path and query, unchanged.
        var origin: String
        var body: [UInt8]?
        var fields: [(name: String, value: String)]
    }

    /// The answer to `exchange`: the upstream's, checked, or a 502/504 problem naming the upstream.
    func forward(_ exchange: Exchange, context: RequestContext, trace: TraceContext?) async -> HTTPResponse {
        let started = ContinuousClock.now
        var response: HTTPResponse
        do {
            let answer = try await client.forward(
                exchange.method, target: exchange.origin, body: exchange.body, fields: exchange.fields,
                requestID: context.requestID, traceContext: trace)
            forwarded.increment([exchange.target.route, "status_\(answer.status)"])
            let diagnostics = check.check(
                exchange.target, status: answer.status, contentType: answer.header("Content-Type"), body: answer.body,
                requestID: context.requestID, echoed: answer.header("X-Request-ID"),
                contentLanguage: answer.header("Content-Language"))
            for diagnostic in diagnostics where diagnostic.severity != .info {
                findings.increment([exchange.target.route, diagnostic.code, diagnostic.severity.rawValue])
            }
            context.forwarding?.record(upstream: client.baseURL + exchange.origin, findings: diagnostics)
            if let recorder {
                // Header-only findings do not touch what is written.
                let blocking = diagnostics.first { $0.severity == .error && $0.code != "request_id_not_echoed" }
                if !(200..<300).contains(answer.status) {
                    log.info("not recorded: \(exchange.origin) was answered \(answer.status)")
                } else if let blocking {
                    log.warning("not recorded: \(exchange.origin): \(blocking.code) \(blocking.path)")
                } else {
                    await recorder.record(exchange, answer: answer, context: context, proxy: self)
                }
            }
            response = relay(answer, diagnostics: diagnostics)
        } catch {
            forwarded.increment([exchange.target.route, error.code])
            context.forwarding?.record(upstream: client.baseURL + exchange.origin, findings: [])
            let code: ProblemCode = error.code == "upstream_timeout" ? .upstreamTimeout : .upstreamUnavailable
            response = ProblemDetails(
                code, detail: "The upstream \(client.baseURL) did not answer: \(error.message)."
            )
            .makeResponse()
            response.headers.set(Self.sourceHeader, "upstream")
        }
        response.requestID = context.requestID
        response.route = exchange.target.route
        response.upstreamNanoseconds = UInt64((ContinuousClock.now - started).seconds * 1e9)
        return response
    }

    /// The field naming where an answer came from: `upstream` on every forwarded answer.
    static let sourceHeader = "X-Flow-Source"
    /// The field summarising the contract check of a forwarded answer (``ProxiedAnswerCheck/summary(_:)``).
    static let contractHeader = "X-Flow-Contract"
    /// The upstream's own `Cache-Control`, kept when mock mode replaces it.
    static let upstreamCacheControlHeader = "X-Flow-Upstream-Cache-Control"

    /// The client's answer for the upstream's: its status, end-to-end fields and body, with where it came from and
    /// what the check found. In mock mode the device's HTTP cache must not answer for the mock, so a cacheable
    /// answer becomes `no-cache` (stored, revalidated through the proxy: the upstream's `ETag` is passed back) and
    /// varies on the mock's request fields, as local mock pages do.
    private func relay(_ answer: UpstreamResponse, diagnostics: [Diagnostic]) -> HTTPResponse {
        var headers = ProxyTarget.returnedFields(of: answer.headerFields)
        headers.set(Self.sourceHeader, "upstream")
        headers.set(Self.contractHeader, ProxiedAnswerCheck.summary(diagnostics))
        if mock {
            // Repeated lines are one list (RFC 9110 § 5.3).
            let cacheControl = headers.values(for: "Cache-Control").joined(separator: ", ")
            if !cacheControl.lowercased().contains("no-store") {
                if !cacheControl.isEmpty { headers.set(Self.upstreamCacheControlHeader, cacheControl) }
                headers.set("Cache-Control", "no-cache")
            }
            let vary = headers.values(for: "Vary").joined(separator: ", ")
            headers.set("Vary", (vary.isEmpty ? "" : vary + ", ") + MockPageLookup.mockVary)
        }
        let body: HTTPResponse.Body = answer.body.isEmpty ? .empty : .bytes(answer.body)
        var response = HTTPResponse(status: HTTPStatus(code: answer.status), headers: headers, body: body)
        if answer.header("Content-Type").map({ MediaType.essence(of: $0) }) == ProblemDetails.mediaType,
            let code = (try? JSONParser().parse(answer.body))?["code"]?.stringValue
        {
            response.errorCode = code
        }
        return response
    }

    private static func problem(_ problem: ProblemDetails, context: RequestContext, route: String) -> HTTPResponse {
        var response = problem.makeResponse()
        response.requestID = context.requestID
        response.route = route
        return response
    }
}

/// What the proxy tells the mock journal about a request it forwarded: the URL it went to and the contract
/// findings on the answer. Made by the mock layer for each journaled request while a proxy runs, and carried to the
/// proxy in the request's context.
final class ForwardingNote: Sendable {
    private let state = Mutex<(upstream: String?, findings: [Diagnostic])>((nil, []))

    func record(upstream: String, findings: [Diagnostic]) {
        state.withLock { $0 = (upstream, findings) }
    }

    /// The upstream URL (`nil` when the request was not forwarded) and the findings.
    var recorded: (upstream: String?, findings: [Diagnostic]) { state.withLock { $0 } }
}

/// The proxy in the responder chain: forwards what the application does not serve itself.
struct ProxyResponder: ChainResponder {
    let proxy: Proxy
    unowned let application: BFFApplication
    let next: any ChainResponder

    func respond(to request: consuming HTTPRequest, context: RequestContext) -> HTTPReply {
        proxy.respond(to: request, context: context, isLocal: application.servesLocally, next: next)
    }
}

extension BFFApplication {
    /// Whether a proxied route has a local answer: a page file or provider for a page, a Swift handler or a
    /// declared answer for an action.
    func servesLocally(_ target: ProxyTarget) -> Bool {
        switch target {
        case .page(let id), .nextPage(let id):
            providers.registration(for: id) != nil || snapshot.catalog.pages[id] != nil
        case .action(let name):
            actions.registration(for: name) != nil || snapshot.catalog.actions[name] != nil
        }
    }
}
