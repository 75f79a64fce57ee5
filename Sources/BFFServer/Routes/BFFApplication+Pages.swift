import HTTPCore
import PageModel

extension BFFApplication {
    /// `GET /v1/pages/{pageID}` — the first chunk of a page; query parameters are page parameters.
    func servePage(_ request: HTTPRequest) throws -> HTTPResponse {
        let snapshot = snapshot
        let page = try lookUp(request.pathParameters["pageID"] ?? "", in: snapshot.catalog)
        var parameters: [String: String] = [:]
        for item in request.queryItems { parameters[item.name] = item.value }
        let variant = try ClientVariant.of(request, page: page)
        let body =
            variant.isPlain
            ? snapshot.initialBody(page, parameters: parameters)
            : snapshot.resolvedInitialBody(page, parameters: parameters, variant: variant)
        return .prepared(body, headers: page.responseHeaders(locale: variant.locale))
    }

    /// `GET /v1/pages/{pageID}/next?postback=…` or `POST` with `{"postback": …}` — the chunk a cursor points at.
    func serveNextPage(_ request: HTTPRequest) throws -> HTTPResponse {
        let snapshot = snapshot
        let pageID = request.pathParameters["pageID"] ?? ""
        let cursor = try verifiedCursor(request, pageID: pageID)
        let page = try lookUp(pageID, in: snapshot.catalog)
        guard cursor.version == page.version else { throw ProblemDetails.cursorExpired }
        guard let body = snapshot.chunkBody(page, cursor: cursor) else {
            throw ProblemDetails.invalidCursor("the postback points past the end of the page")
        }
        return .prepared(body, headers: page.responseHeaders(locale: cursor.locale))
    }

    /// The verified cursor of a next-page request (query `postback` or body `{"postback"}`) for `pageID`.
    func verifiedCursor(_ request: HTTPRequest, pageID: String) throws -> Cursor {
        guard PageID.isValid(pageID) else { throw ProblemDetails.invalidPageID(pageID) }
        let postback: String
        if request.method == .post {
            let body = try jsonBody(of: request)
            guard case .object(let object) = body else {
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
            cursor = try verifiedCursors.cursor(for: postback, codec: cursors)
        } catch {
            throw ProblemDetails.invalidCursor(error.reason)
        }
        guard cursor.pageID == pageID else {
            throw ProblemDetails.invalidCursor("the postback belongs to page \"\(cursor.pageID)\", not \"\(pageID)\"")
        }
        return cursor
    }

    func lookUp(_ pageID: String, in catalog: PageCatalog) throws -> CatalogPage {
        guard PageID.isValid(pageID) else { throw ProblemDetails.invalidPageID(pageID) }
        guard let page = catalog.pages[pageID] else {
            throw ProblemDetails.pageNotFound(
                pageID, suggestion: NearMiss.closest(to: pageID, among: catalog.pages.keys))
        }
        return page
    }

    /// The request body as JSON: size-limited, `application/json` (or no type), syntactically valid.
    func jsonBody(of request: HTTPRequest) throws -> JSONValue {
        let limit = configuration.http.maximumActionBodyBytes
        guard request.body.count <= limit else { throw ProblemDetails.bodyTooLarge(limit) }
        if let type = request.headers["Content-Type"] {
            let essence =
                type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard essence == "application/json" || essence.hasSuffix("+json") else {
                throw ProblemDetails.unsupportedMediaType(type)
            }
        }
        do {
            return try JSONParser(maximumDepth: 64).parse(request.body)
        } catch {
            throw ProblemDetails.invalidJSON(error.description)
        }
    }
}
