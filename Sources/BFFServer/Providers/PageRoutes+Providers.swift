import HTTPCore
import PageModel

/// Running Swift page providers (``PageProviders``): the pipeline (Pipeline/PageRoutes.swift) calls them
/// in a task on the request's event loop, under their timeout (Code/CodeRegistry.swift), and serves what they return
/// like a page file.
extension PageRoutes {
    /// What a provider is told about the request, as its call starts.
    func providerContext(
        _ pageID: String, _ parameters: [String: String], _ request: HTTPRequest,
        _ capabilities: ClientCapabilities?, _ context: RequestContext, _ registration: PageProviders.Registration
    ) -> PageRequestContext {
        PageRequestContext(
            pageID: pageID, parameters: parameters,
            call: CallContext(
                request, context, capabilities: capabilities, timeout: registration.options.timeout, log: log,
                span: "provider \(pageID)", attributes: [.string(SemanticAttribute.page, pageID)]))
    }

    /// Calls the provider under its timeout and validates what it returns.
    /// Counts the call's outcome per page (`ok`, `degraded`, a problem code, `internal_error`).
    /// - Returns: the validated page and the degradations the provider reported.
    func runProvider(_ registration: PageProviders.Registration, _ context: PageRequestContext) async throws
        -> (page: CatalogPage, degradations: [Degradation])
    {
        let provider = registration.work
        let provided = try await providers.code.run(
            context.pageID, timeout: registration.options.timeout, span: context.call.span,
            timer: context.call.upstreamTimer
        ) {
            try await provider(context)
        }
        let page =
            try unchanged(provided, context: context, options: registration.options)
            ?? validate(provided, context: context, options: registration.options)
        providers.code.count(context.pageID, outcome: provided.degradations.isEmpty ? "ok" : "degraded")
        providers.remember(page, parameters: context.parameters)
        return (page, provided.degradations)
    }

    /// The page last served for the same parameters when the provider returned it again unchanged (the same
    /// document, strings and options): it passed ``validate(_:context:options:)`` then, and keeps its version, so
    /// its prepared representations are reused too. A page the decoder had to normalise never equals its source,
    /// and is checked every time.
    func unchanged(_ provided: ProvidedPage, context: PageRequestContext, options: PageProviderOptions)
        -> CatalogPage?
    {
        guard
            let last = providers.remembered(context.pageID, parameters: context.parameters), last.page == provided.page,
            last.strings == provided.strings,
            last.pageSize == options.pageSize ?? defaults.defaultPageSize,
            last.cacheControl == options.cacheControl ?? defaults.cacheControl
        else { return nil }
        return last
    }

    /// The provider's page checked with the same decoder, lint and string rules as a page file.
    func validate(_ provided: ProvidedPage, context: PageRequestContext, options: PageProviderOptions) throws
        -> CatalogPage
    {
        var diagnostics: [Diagnostic] = []
        if provided.page.id != context.pageID {
            diagnostics.append(
                .error("page_id_mismatch", "/page/id", "the provider returned page \"\(provided.page.id)\""))
        }
        if provided.page.pagination != nil {
            diagnostics.append(
                .error(
                    "unexpected_pagination", "/page/pagination", "providers return no pagination; the server adds it"))
        }
        var page = provided.page
        // One JSON tree serves the decoder and, when decoding changed nothing, the content version.
        let json = provided.page.json
        var encoded: [UInt8]?
        do {
            let decoded = try PageDecoder().decodePage(json: json, at: "/page")
            diagnostics += decoded.diagnostics + PageValidator().validate(decoded.value, at: "/page")
            diagnostics += PageFile.checkMarkers(decoded.value, strings: provided.strings)
            page = decoded.value
            if page == provided.page { encoded = JSONWriter().write(json) }
        } catch {
            diagnostics.append(error.diagnostic)
        }
        let errors = diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else {
            throw providers.code.refusal(
                context.pageID, errors: errors, log: context.log, showingDiagnostics: showsDiagnostics)
        }
        return CatalogPage(
            page: page, pageSize: options.pageSize ?? defaults.defaultPageSize,
            cacheControl: options.cacheControl ?? defaults.cacheControl, strings: provided.strings,
            encoded: encoded)
    }
}
