import Dispatch
import HTTPCore
import PageModel

/// Serving provider pages: the provider runs in a `Task` behind ``HTTPReply/deferred(_:)`` (never on an
/// event-loop thread) under its timeout; its page is validated like a page file and served through the same
/// pagination, cursor, resolution, ETag, metrics and access-log code as file pages.
extension BFFApplication {
    /// The deferred reply for a provider page route, or `nil` when the request is for something else.
    func providerReply(for request: HTTPRequest, requestID: String, start: UInt64) -> HTTPReply? {
        guard !providers.isEmpty, request.path.hasPrefix("/v1/pages/") else { return nil }
        let rest = request.path.utf8.dropFirst(10).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let isNext = rest.count == 2 && rest[1].elementsEqual("next".utf8)
        guard rest.count == 1 || isNext, let id = String(rest[0]),
            let registration = providers.registration(for: id)
        else { return nil }
        let method = request.method
        guard method == .get || method == .head || (isNext && method == .post) else { return nil }
        metrics.inFlight.add(1, ordering: .relaxed)
        return .deferred { promise in
            Task {
                var response: HTTPResponse
                do {
                    response =
                        isNext
                        ? try await self.serveProviderNext(request, id, registration, requestID: requestID)
                        : try await self.serveProviderPage(request, id, registration, requestID: requestID)
                } catch let problem as ProblemDetails {
                    response = problem.response
                } catch let error as PageProviderError {
                    self.providers.count(id, outcome: error.code)
                    response = error.problem.response
                } catch {
                    self.providers.count(id, outcome: "internal_error")
                    self.log.write(
                        "{\"level\":\"error\",\"requestID\":\"\(requestID)\",\"page\":\"\(id)\",\"message\":\(AccessLogLine.quoted(String(describing: error)))}"
                    )
                    response = Self.internalError(requestID: requestID).response
                }
                response = self.finish(
                    response, request: request, requestID: requestID, start: start, route: isNext ? "nextPage" : "page")
                self.metrics.inFlight.subtract(1, ordering: .relaxed)
                promise.succeed(response)
            }
        }
    }

    /// What ``respond(to:)`` does after routing: request id header, metrics, access log.
    func finish(_ response: HTTPResponse, request: HTTPRequest, requestID: String, start: UInt64, route: String)
        -> HTTPResponse
    {
        var response = response
        response.headers.set("X-Request-ID", requestID)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let (status, bytes) = Self.outcome(of: response, for: request)
        metrics.record(route: route, status: status, seconds: seconds)
        if configuration.logging.accessLog {
            log.write(
                AccessLogLine(
                    requestID: requestID, method: request.method.rawValue, path: request.path, route: route,
                    status: status, bytes: bytes, seconds: seconds
                ).json)
        }
        return response
    }

    func serveProviderPage(
        _ request: HTTPRequest, _ pageID: String, _ registration: PageProviders.Registration, requestID: String
    ) async throws -> HTTPResponse {
        var parameters: [String: String] = [:]
        for item in request.queryItems { parameters[item.name] = item.value }
        var variant = ClientVariant(capabilities: try ClientVariant.capabilities(of: request))
        let context = PageRequestContext(
            pageID: pageID, parameters: parameters, headers: request.headers,
            session: request.headers["X-Flow-Session"], capabilities: variant.capabilities,
            acceptLanguage: request.headers["Accept-Language"], requestID: requestID)
        let (page, provided) = try await runProvider(registration, context)
        variant.locale = ClientVariant.locale(of: request, strings: page.strings)
        let body = CatalogSnapshot.firstLoad(
            page, parameters: parameters, variant: variant, cursors: cursors, extra: provided.degradations)
        return .prepared(body, headers: page.responseHeaders(locale: variant.locale))
    }

    func serveProviderNext(
        _ request: HTTPRequest, _ pageID: String, _ registration: PageProviders.Registration, requestID: String
    ) async throws -> HTTPResponse {
        let cursor = try verifiedCursor(of: request, pageID: pageID)
        guard let variant = ClientVariant.of(cursor) else {
            throw ProblemDetails.invalidCursor("the postback's client profile is malformed")
        }
        var page = providers.remembered(pageID, parameters: cursor.parameters, version: cursor.version)
        if page == nil {
            let context = PageRequestContext(
                pageID: pageID, parameters: cursor.parameters, headers: request.headers,
                session: request.headers["X-Flow-Session"], capabilities: variant.capabilities,
                acceptLanguage: request.headers["Accept-Language"], requestID: requestID)
            let fresh = try await runProvider(registration, context).0
            guard fresh.version == cursor.version else { throw ProblemDetails.cursorExpired }
            page = fresh
        }
        guard let page, let body = CatalogSnapshot.chunk(page, cursor: cursor, variant: variant, cursors: cursors)
        else { throw ProblemDetails.invalidCursor("the postback points past the end of the page") }
        return .prepared(body, headers: page.responseHeaders(locale: cursor.locale))
    }

    /// Calls the provider under its timeout and validates what it returns.
    func runProvider(_ registration: PageProviders.Registration, _ context: PageRequestContext) async throws
        -> (CatalogPage, ProvidedPage)
    {
        let timeout = registration.options.timeout
        let provider = registration.provider
        let provided = try await withDeadline(
            timeout,
            onTimeout: {
                ProblemDetails(
                    status: 504, code: "provider_timeout", title: "Provider timeout",
                    detail: "The page provider for \"\(context.pageID)\" did not answer within \(timeout.seconds) s.")
            }, { try await provider(context) })
        let page = try validate(provided, context: context, options: registration.options)
        providers.count(context.pageID, outcome: provided.degradations.isEmpty ? "ok" : "degraded")
        providers.remember(page, parameters: context.parameters)
        return (page, provided)
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
        do {
            let decoded = try PageDecoder().decodePage(json: provided.page.json, at: "/page")
            diagnostics += decoded.diagnostics + PageValidator().validate(decoded.value, at: "/page")
            diagnostics += PageFile.checkMarkers(decoded.value, strings: provided.strings)
            page = decoded.value
        } catch {
            diagnostics.append(error.diagnostic)
        }
        let errors = diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else {
            providers.count(context.pageID, outcome: "invalid_provider_page")
            log.write(
                "{\"level\":\"error\",\"requestID\":\"\(context.requestID)\",\"page\":\"\(context.pageID)\",\"message\":\(AccessLogLine.quoted("invalid provider page: " + errors.map(\.description).joined(separator: "; ")))}"
            )
            throw ProblemDetails(
                status: 500, code: "invalid_provider_page", title: "Invalid provider page",
                detail: "The page provider for \"\(context.pageID)\" returned a page with \(errors.count) errors.",
                diagnostics: errors)
        }
        return CatalogPage(
            page: page, pageSize: options.pageSize ?? configuration.pages.defaultPageSize,
            cacheControl: options.cacheControl ?? configuration.pages.cacheControl, strings: provided.strings)
    }

    /// The verified cursor of a next-page request (`?postback=` or a JSON body) for `pageID`.
    func verifiedCursor(of request: HTTPRequest, pageID: String) throws -> Cursor {
        let postback: String
        if request.method == .post {
            guard case .object(let object) = try jsonBody(of: request), case .string(let value)? = object["postback"]
            else { throw ProblemDetails.invalidRequest("/postback", "postback is a required string.") }
            postback = value
        } else {
            guard let value = request.queryItem("postback") else {
                throw ProblemDetails.invalidRequest("/postback", "The postback query parameter is required.")
            }
            postback = value
        }
        let cursor: Cursor
        do { cursor = try verifiedCursors.cursor(for: postback, codec: cursors) } catch {
            throw ProblemDetails.invalidCursor(error.reason)
        }
        guard cursor.pageID == pageID else {
            throw ProblemDetails.invalidCursor("the postback belongs to page \"\(cursor.pageID)\", not \"\(pageID)\"")
        }
        return cursor
    }
}
