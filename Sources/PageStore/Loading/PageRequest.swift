import PageModel

/// One request a ``PageStore`` (or an ``ActionDispatcher``) asks its ``PageLoader`` to perform.
public struct PageRequest: Sendable, Hashable {
    /// The seed's loader kinds: `initial`, `refresh`, `nextPage(postback:)`, `action`.
    public enum Kind: Sendable, Hashable {
        /// First paint, and `retry()`: `GET /v1/pages/{pageID}`.
        case initial
        /// Pull to refresh: `GET /v1/pages/{pageID}` with `Cache-Control: no-cache`.
        case refresh
        /// The next chunk of sections: `GET /v1/pages/{pageID}/next?postback=…`.
        case nextPage(postback: String)
        /// An api action round trip: `POST /v1/actions/{name}`.
        case action(ActionRequest)
    }

    public var pageID: String
    /// Page parameters, sent as the query string of `initial` and `refresh` requests.
    public var parameters: [String: String]
    public var kind: Kind

    public init(pageID: String, parameters: [String: String] = [:], kind: Kind) {
        self.pageID = pageID
        self.parameters = parameters
        self.kind = kind
    }
}
