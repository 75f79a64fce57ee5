import HTTPCore
import PageModel

/// Reads a request body as JSON: size-limited, `application/json` (or any `+json`, or no type), syntactically
/// valid, at most 64 levels deep. The page, action and admin routes read their bodies through one.
struct JSONBodyReader: Sendable {
    /// The largest body accepted (`http.maximumActionBodyBytes`).
    let limit: Int

    /// - Throws: 413 `body_too_large`, 415 `unsupported_media_type`, 400 `invalid_json`.
    func read(_ request: HTTPRequest) throws(ProblemDetails) -> JSONValue {
        guard request.body.count <= limit else { throw .bodyTooLarge(limit) }
        if let type = request.headers["Content-Type"], !MediaType.isJSON(type) { throw .unsupportedMediaType(type) }
        do {
            return try JSONParser(maximumDepth: 64).parse(request.body)
        } catch {
            throw .invalidJSON(error.description)
        }
    }
}
