/// An RFC 9457 `application/problem+json` error body with the contract's stable `code`.
///
/// Wire form: `{"type", "title", "status", "detail", "code", "path"?, "diagnostics"?}`; `type` is
/// `https://flow-bff.dev/problems/{code}` (a stable identifier, not a fetched URL).
public struct ProblemDetails: Sendable, Hashable, Codable, Error {
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    /// Stable machine code: `page_not_found`, `invalid_cursor`, `cursor_expired`, `invalid_json`, …
    public var code: String
    /// JSON Pointer into the request body, for errors about a request body.
    public var path: String?
    public var diagnostics: [Diagnostic]?

    public static let mediaType = "application/problem+json"

    public init(
        status: Int, code: String, title: String, detail: String, path: String? = nil,
        diagnostics: [Diagnostic]? = nil
    ) {
        self.type = "https://flow-bff.dev/problems/" + code
        self.title = title
        self.status = status
        self.detail = detail
        self.code = code
        self.path = path
        self.diagnostics = diagnostics
    }
}
