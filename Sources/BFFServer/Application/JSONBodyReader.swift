import HTTPCore
import PageModel

/// Reads a request body as JSON: size-limited, declared `application/json` (or any `+json`), syntactically valid,
/// at most 64 levels deep. A body without a `Content-Type` is refused like one of another type (docs/contract.md
/// § 13); an empty body needs none and is `invalid_json`. The page, action and admin routes read their bodies through one.
struct JSONBodyReader: Sendable {
    /// The largest body accepted (`http.maximumActionBodyBytes`).
    let limit: Int

    /// - Throws: 413 `body_too_large`, 415 `unsupported_media_type`, 400 `invalid_json`.
    func read(_ request: HTTPRequest) throws(ProblemDetails) -> JSONValue {
        guard request.body.count <= limit else { throw .bodyTooLarge(limit) }
        if let type = request.headers["Content-Type"] {
            guard MediaType.isJSON(type) else { throw .unsupportedMediaType(type) }
        } else if !request.body.isEmpty {
            throw .unsupportedMediaType(nil)
        }
        do {
            return try JSONParser(maximumDepth: 64).parse(request.body)
        } catch {
            throw .invalidJSON(error.description)
        }
    }
}
