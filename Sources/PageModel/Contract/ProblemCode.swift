/// A problem code a flow-bff server sends: the stable machine `code` of an `application/problem+json` answer with
/// the HTTP status and title it always has, and what it means. ``all`` is the one list: the server builds its
/// problems from these members, and docs/contract.md § 13, docs/mock.md, docs/http.md and the OpenAPI document are
/// checked against it (Tests/BFFServerTests/ProblemCatalogueTests.swift), so a code cannot be sent without being
/// documented. Problems a page file declares for its actions carry their authors' own codes and are not listed.
public struct ProblemCode: Sendable, Hashable, CustomStringConvertible {
    /// Which servers send a code.
    public enum Scope: String, Sendable, CaseIterable {
        /// Any server: the contract's codes (docs/contract.md § 13).
        case contract
        /// Mock mode only: the admin API, the network simulation, the preview (docs/mock.md, docs/preview.md).
        case mock
        /// The HTTP layer, for requests it refuses before any route sees them (docs/http.md).
        case http
    }

    /// The wire `code`, snake_case.
    public let rawValue: String
    /// The HTTP status it is sent with; `nil` when the occurrence chooses it (a simulated fault's 5xx or 429).
    public let status: Int?
    public let title: String
    public let scope: Scope
    /// When it is sent.
    public let meaning: String

    init(_ code: String, _ status: Int?, _ title: String, _ scope: Scope, _ meaning: String) {
        rawValue = code
        self.status = status
        self.title = title
        self.scope = scope
        self.meaning = meaning
    }

    public var description: String { rawValue }

    /// The catalogued code named `rawValue`.
    public static func named(_ rawValue: String) -> ProblemCode? { byName[rawValue] }

    private static let byName: [String: ProblemCode] = Dictionary(uniqueKeysWithValues: all.map { ($0.rawValue, $0) })
}

extension ProblemDetails {
    /// A problem with `code`'s status and title.
    /// - Precondition: `code` has a fixed status (every code but ``ProblemCode/simulatedFault``).
    public init(_ code: ProblemCode, detail: String, path: String? = nil, diagnostics: [Diagnostic]? = nil) {
        precondition(code.status != nil, "\(code) takes its status from the occurrence")
        self.init(
            status: code.status!, code: code.rawValue, title: code.title, detail: detail, path: path,
            diagnostics: diagnostics)
    }
}
