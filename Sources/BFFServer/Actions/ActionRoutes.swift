import HTTPCore
import PageModel

/// The api action route: what it reads is listed here, nothing else of the application.
struct ActionRoutes: Sendable {
    typealias Answer = BFFApplication.Answer

    let served: ServedSnapshot
    /// Which documents a device can hold as a page, and what an answer does to a mock session's copies.
    let lookup: any PageLookup
    let actions: ActionHandlers
    /// How long an `Idempotency-Key`'s answer is kept (`actions.idempotencySeconds`).
    let idempotencySeconds: Double
    /// Whether a refused answer shows its diagnostics in the body (mock mode).
    let showsDiagnostics: Bool
    let bodyReader: JSONBodyReader
    let log: Logger

    var snapshot: CatalogSnapshot { served.snapshot }

    /// `POST /v1/actions/{name}`: the body is checked as an ``ActionRequest``, then against the page it names (the
    /// widget must be one a device could hold there and declare the event), then answered by the Swift handler
    /// registered for the name (``ActionHandlers``) or the page file's declared answer
    /// (Actions/BFFApplication+DeclaredAnswer.swift), resolved for the client like the page. With an
    /// `Idempotency-Key`, the answer is computed once and replayed for retries (Actions/IdempotentAnswering.swift).
    func serveAction(_ request: HTTPRequest, _ context: RequestContext) throws -> Answer {
        let snapshot = snapshot
        let name = request.pathParameters["name"] ?? ""
        let body = try bodyReader.read(request)
        let action: ActionRequest
        do {
            action = try ActionRequest(name: name, body: body)
        } catch {
            throw ProblemDetails.invalidRequest(error.path, error.message)
        }
        let handler = ActionName.isValid(name) ? actions.registration(for: name) : nil
        let declared = ActionName.isValid(name) ? snapshot.catalog.actions[name] : nil
        guard handler != nil || declared != nil else {
            throw ProblemDetails.unknownAction(
                name,
                suggestion: NearMiss.closest(
                    to: name, among: Array(snapshot.catalog.actions.keys) + actions.patterns))
        }
        let targets = try lookup.actionDocuments(action.pageID, context: context, snapshot: snapshot).map {
            $0.map { snapshot.actionTargets(of: $0) }
        }
        if let targets { try ActionTargets.check(action, against: targets) }
        let page = snapshot.catalog.pages[declared?.pageID ?? action.pageID]
        let idempotency = try IdempotentAnswering(
            request, action: name, session: context.validSession, ttlSeconds: idempotencySeconds)
        if let handler {
            let capabilities = try context.capabilities()
            let compute = { @Sendable () async throws -> HTTPResponse in
                let call = ActionRequestContext(
                    request: action, query: self.lookup.parameters(of: request),
                    call: CallContext(
                        request, context, capabilities: capabilities, timeout: handler.options.timeout, log: self.log,
                        span: "action \(name)", attributes: [.string(SemanticAttribute.action, name)]))
                let answer = try await self.runHandler(handler, call)
                self.lookup.actionAnswered(
                    answer.response, action, dataUpdate: answer.dataUpdate, context: context, snapshot: snapshot)
                var response = try self.actionResponse(answer, declaredBy: page, context)
                response.upstreamNanoseconds = call.call.upstreamTimer?.nanoseconds ?? 0
                return response
            }
            guard let idempotency else { return .later(compute) }
            let lease = IdempotentAnswering.lease(outliving: handler.options.timeout)
            return .later { try await idempotency.answer(store: self.actions.idempotencyStore, lease: lease, compute) }
        }
        guard let declared else { preconditionFailure("checked above") }
        let answer = { @Sendable () throws -> HTTPResponse in
            let answer = try self.declaredAnswer(
                declared, to: action, request, context, snapshot: snapshot, targets: targets)
            self.lookup.actionAnswered(
                answer.response, action, dataUpdate: answer.dataUpdate, context: context, snapshot: snapshot)
            return try self.actionResponse(answer, declaredBy: page, context)
        }
        guard let idempotency else { return .now(try answer()) }
        return .later { try await idempotency.answer(store: self.actions.idempotencyStore, answer) }
    }

    /// The response carrying `answer`: its prepared body when it is fixed and the client declared nothing;
    /// otherwise resolved for the client's capabilities and locale (like the page declaring the action) and encoded
    /// per request — action answers are not cached by clients and are far rarer than page loads.
    func actionResponse(_ answer: ActionAnswer, declaredBy page: CatalogPage?, _ context: RequestContext) throws
        -> HTTPResponse
    {
        let variant = try page.map { page throws(ProblemDetails) in try context.variant(for: page) } ?? .plain
        guard let page, let resolver = variant.resolver(for: page) else {
            if let prepared = answer.prepared { return .prepared(prepared, headers: ["Cache-Control": "no-store"]) }
            // Computed per request: sent as encoded, compressed on the way only when the client asks for gzip.
            let bytes = answer.encoded ?? Envelope.actionResponse(answer.response).encoded()
            return .json(bytes, headers: ["Cache-Control": "no-store"])
        }
        let (response, degradations) = resolver.resolve(answer.response)
        var headers = page.responseHeaders(locale: variant.locale)
        headers.set("Cache-Control", "no-store")
        let bytes = Representation.encode(
            .actionResponse(response), degradations: variant.capabilities == nil ? nil : degradations,
            locale: page.strings.map { variant.locale ?? $0.defaultLocale })
        return .json(bytes, headers: headers)
    }

    /// Runs a Swift handler under its timeout and checks its answer with the codec and the lint rules, counting
    /// the outcome per action (`ok`, a problem code, `invalid_action_response`, `internal_error`). An invalid answer
    /// is a server bug: a logged 500 whose body names the lint codes, with the diagnostics only in mock mode.
    func runHandler(_ handler: ActionHandlers.Registration, _ context: ActionRequestContext) async throws
        -> ActionAnswer
    {
        let name = context.request.name
        let work = handler.work
        let response = try await actions.code.run(
            name, timeout: handler.options.timeout, span: context.call.span, timer: context.call.upstreamTimer
        ) {
            try await work(context)
        }
        // One JSON tree gives the bytes that are sent and the value decoded to check them.
        let json = Envelope.actionResponse(response).json
        let encoded = JSONWriter().write(json)
        let errors = Self.diagnostics(of: json).filter { $0.severity == .error }
        guard errors.isEmpty else {
            throw actions.code.refusal(
                name, errors: errors, log: context.log, showingDiagnostics: showsDiagnostics)
        }
        actions.code.count(name, outcome: "ok")
        return ActionAnswer(response: response, prepared: nil, encoded: encoded)
    }

    /// What the codec and the lint rules find in a computed answer: it is decoded like a device would
    /// (unknown or malformed content shows up here), and what its mutations bring and its effects are linted
    /// (`unsafe_url` deeplinks included). Mutation targets are
    /// not checked against the page: a device may hold widgets an earlier answer brought.
    /// `envelope` is the answer's JSON, the value whose bytes are then sent.
    static func diagnostics(of envelope: JSONValue) -> [Diagnostic] {
        let decoded: ActionResponse
        var diagnostics: [Diagnostic]
        do {
            let result = try PageDecoder().decodeActionResponse(json: envelope)
            decoded = result.value
            diagnostics = result.diagnostics
        } catch {
            return [error.diagnostic]
        }
        return diagnostics + PageValidator().validate(decoded)
    }
}

/// The answer to one api action request, before client resolution.
struct ActionAnswer: Sendable {
    var response: ActionResponse
    /// The encoded envelope when the answer is fixed (prepared once per catalog); `nil` for a computed answer.
    var prepared: PreparedBody?
    /// The envelope's bytes when a computed answer was encoded to be checked: sent as they are.
    var encoded: [UInt8]? = nil
    /// What the answer changes in the session's copy of the data (a declared answer's `data`).
    var dataUpdate: DataUpdate? = nil
}

/// The data changes of one answered request, with the request values their placeholders are filled from.
struct DataUpdate: Sendable {
    var changes: [DataChange]
    var facts: RequestFacts

    func applied(to documents: DataDocuments) -> DataDocuments {
        var result = documents
        for change in changes { change.applied(to: &result, facts: facts) }
        return result
    }
}
