import PageModel

/// Why a request produced no document: a transport failure, an HTTP error (with its problem+json body) or a
/// body that is not a valid envelope.
///
/// `message` is the readable text a ``PageStore`` puts into ``PageState/failed(message:)``.
public struct PageLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable machine code: the problem's `code` for HTTP errors (`page_not_found`, …), `http_error` when the
    /// server sent no problem body, `timeout`, `network_error`, `cancelled`, or a ``ContractError`` code
    /// (`invalid_json`, `invalid_envelope`, `unexpected_kind`, …).
    public var code: String
    /// Human-readable, one line.
    public var message: String
    /// The HTTP status, when there was a response.
    public var status: Int?
    /// The `application/problem+json` body, when the server sent one.
    public var problem: ProblemDetails?
    /// The answer's `Content-Type`, when there was a response.
    public var contentType: String?

    public init(code: String, message: String, status: Int? = nil, problem: ProblemDetails? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.problem = problem
    }

    /// An HTTP error described by its problem+json body: `"Page not found: no page \"x\" (404 page_not_found)"`.
    public init(problem: ProblemDetails) {
        let detail = problem.detail.isEmpty ? "" : ": " + problem.detail
        self.init(
            code: problem.code, message: "\(problem.title)\(detail) (\(problem.status) \(problem.code))",
            status: problem.status, problem: problem)
    }

    /// A body that is not a valid envelope.
    public init(contract error: ContractError) {
        self.init(code: error.code, message: "Invalid response: \(error.description)")
    }

    /// Any error a loader or decoder threw, as a ``PageLoadError``.
    public init(_ error: any Error) {
        switch error {
        case let error as PageLoadError: self = error
        case let error as ContractError: self.init(contract: error)
        case is CancellationError: self.init(code: "cancelled", message: "The request was cancelled")
        default: self.init(code: "load_failed", message: String(describing: error))
        }
    }

    public var description: String { message }
}
