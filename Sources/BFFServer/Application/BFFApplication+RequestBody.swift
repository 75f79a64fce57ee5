import HTTPCore
import PageModel

extension BFFApplication {
    /// The request body as JSON: size-limited, `application/json` (or any `+json`, or no type), syntactically
    /// valid, at most 64 levels deep.
    /// - Throws: 413 `body_too_large`, 415 `unsupported_media_type`, 400 `invalid_json`.
    func jsonBody(of request: HTTPRequest) throws(ProblemDetails) -> JSONValue {
        let limit = configuration.http.maximumActionBodyBytes
        guard request.body.count <= limit else { throw .bodyTooLarge(limit) }
        if let type = request.headers["Content-Type"], !MediaType.isJSON(type) { throw .unsupportedMediaType(type) }
        do {
            return try JSONParser(maximumDepth: 64).parse(request.body)
        } catch {
            throw .invalidJSON(error.description)
        }
    }
}
