import HTTPCore
import PageModel

/// The page routes and the pipeline behind them: a request becomes (source, position, client variant) → prepared
/// bytes. One `servePage`, one `serveNextPage` and one cursor verification for every source (``PageLookup``). What
/// the routes read is listed here, nothing else of the application.
struct PageRoutes: Sendable {
    typealias Answer = BFFApplication.Answer

    let served: ServedSnapshot
    /// Where documents come from: the catalog and providers, with mock scenarios and sessions in front in mock mode.
    let lookup: any PageLookup
    let cursors: CursorCodec
    /// Postbacks whose signature already verified (a popular cursor costs a lookup, not an HMAC).
    let verifiedCursors: BoundedCache<PostbackKey, Cursor>
    /// Encoded and gzipped envelopes by content version, position, parameters and client variant.
    let representations: BoundedCache<RepresentationKey, PreparedBody>
    let providers: PageProviders
    /// The page size and `Cache-Control` of provider pages that set none (`pages.*`).
    let defaults: BFFConfiguration.Pages
    /// Whether a refused provider page shows its diagnostics in the body (mock mode).
    let showsDiagnostics: Bool
    let bodyReader: JSONBodyReader
    let log: Logger

    var snapshot: CatalogSnapshot { served.snapshot }

    /// `GET /v1/pages/{pageID}` — the first chunk of a page; query parameters are page parameters.
    func servePage(_ request: HTTPRequest, _ context: RequestContext) throws -> Answer {
        let snapshot = snapshot
        let pageID = request.pathParameters["pageID"] ?? ""
        guard PageID.isValid(pageID) else { throw ProblemDetails.invalidPageID(pageID) }
        let parameters = lookup.parameters(of: request)
        switch try lookup.firstLoad(pageID, request, context: context, snapshot: snapshot) {
        case .answer(let response):
            return .now(response)
        case .document(let page, let headers):
            let variant = try context.variant(for: page)
            let key = RepresentationKey.firstLoad(page, parameters: parameters, variant: variant)
            return .now(try response(page, key, variant: { variant }, headers: headers, snapshot: snapshot))
        case .provider(let registration):
            let capabilities = try context.capabilities()
            return .later {
                let call = self.providerContext(pageID, parameters, request, capabilities, context, registration)
                let (page, degradations) = try await self.runProvider(registration, call)
                let variant = ClientVariant(capabilities: capabilities, locale: context.locale(strings: page.strings))
                let key = RepresentationKey.firstLoad(
                    page, parameters: parameters, variant: variant, degradations: degradations)
                var response = try self.response(page, key, variant: { variant }, snapshot: snapshot)
                response.upstreamNanoseconds = call.call.upstreamTimer?.nanoseconds ?? 0
                return response
            }
        }
    }

    /// `GET /v1/pages/{pageID}/next?postback=…` or `POST` with `{"postback": …}` — the chunk a cursor points at.
    func serveNextPage(_ request: HTTPRequest, _ context: RequestContext) throws -> Answer {
        let snapshot = snapshot
        let cursor = try verifiedCursor(request, pageID: request.pathParameters["pageID"] ?? "")
        let key = RepresentationKey.chunk(cursor)
        let variant = { () throws(ProblemDetails) -> ClientVariant in
            guard let variant = ClientVariant.of(cursor) else {
                throw ProblemDetails.invalidCursor("the postback's client profile is malformed")
            }
            return variant
        }
        switch try lookup.continuation(of: cursor, context: context, snapshot: snapshot) {
        case .answer(let response):
            return .now(response)
        case .document(let page, let headers):
            return .now(try response(page, key, variant: variant, headers: headers, snapshot: snapshot))
        case .provider(let registration):
            let variant = try variant()
            if let page = providers.remembered(cursor.pageID, parameters: cursor.parameters, version: cursor.version) {
                return .now(try response(page, key, variant: { variant }, snapshot: snapshot))
            }
            return .later {
                let call = self.providerContext(
                    cursor.pageID, cursor.parameters, request, variant.capabilities, context, registration)
                let page = try await self.runProvider(registration, call).page
                guard page.version == cursor.version else { throw ProblemDetails.cursorExpired }
                return try self.response(page, key, variant: { variant }, snapshot: snapshot)
            }
        }
    }

    /// The response for `key` of `page`: the prepared body from the snapshot's first loads or the representation
    /// cache (made on a miss), with the page's `Cache-Control`, `Vary`, `Content-Language` and `headers`.
    /// - Throws: 400 `invalid_cursor` when the key's position is past the end of the page.
    @inline(__always)
    func response(
        _ page: CatalogPage, _ key: RepresentationKey, variant: () throws(ProblemDetails) -> ClientVariant,
        headers: HTTPFields = [:], snapshot: CatalogSnapshot
    ) throws(ProblemDetails) -> HTTPResponse {
        var body = key.isPlainFirstLoad ? snapshot.firstLoads[key.version] : nil
        if body == nil {
            body = try representations.value(for: key) { () throws(ProblemDetails) -> PreparedBody? in
                Representation.make(page, key, variant: try variant(), cursors: cursors)
            }
        }
        guard let body else { throw ProblemDetails.invalidCursor("the postback points past the end of the page") }
        var response: HTTPResponse
        if headers.isEmpty, let block = page.headerBlock {
            response = HTTPResponse.prepared(body)
            response.headerBlock = block
        } else {
            var fields = page.responseHeaders(locale: key.locale)
            for field in headers { fields.set(field.name, field.value) }
            response = .prepared(body, headers: fields)
        }
        // The page's id, served: a known page (metrics label it by page; the URL of an unknown one never does).
        response.annotations = page.annotations
        return response
    }

    /// The verified cursor of a next-page request (query `postback` or body `{"postback"}`) for `pageID`.
    /// - Throws: 400 `invalid_page_id`, `invalid_request`, `invalid_cursor` (also for another page's cursor).
    func verifiedCursor(_ request: HTTPRequest, pageID: String) throws -> Cursor {
        guard PageID.isValid(pageID) else { throw ProblemDetails.invalidPageID(pageID) }
        let postback: String
        if request.method == .post {
            guard case .object(let object) = try bodyReader.read(request) else {
                throw ProblemDetails.invalidRequest(.root, "The body is an object {\"postback\": string}.")
            }
            guard case .string(let value)? = object["postback"] else {
                throw ProblemDetails.invalidRequest("/postback", "postback is a required string.")
            }
            postback = value
        } else {
            guard let value = request.queryItem("postback") else {
                throw ProblemDetails.invalidRequest("/postback", "The postback query parameter is required.")
            }
            postback = value
        }
        let cursor: Cursor
        do {
            cursor = try verifiedCursors.value(for: PostbackKey(text: postback)) { () throws(CursorError) in
                try cursors.decode(postback)
            }!
        } catch {
            throw ProblemDetails.invalidCursor(error.reason)
        }
        guard cursor.pageID == pageID else {
            throw ProblemDetails.invalidCursor("the postback belongs to page \"\(cursor.pageID)\", not \"\(pageID)\"")
        }
        return cursor
    }
}
