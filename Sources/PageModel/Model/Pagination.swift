/// Whether more sections follow, and the opaque cursor that fetches them.
///
/// Wire form: `{"hasMore": Bool, "postback"?: String}`; `postback` is required when `hasMore` is true.
public struct Pagination: Sendable, Hashable {
    public var hasMore: Bool
    /// Opaque to clients: send it back unchanged to `GET /v1/pages/{pageID}/next?postback=…`.
    public var postback: String?

    public init(hasMore: Bool, postback: String? = nil) {
        self.hasMore = hasMore
        self.postback = postback
    }

    public static let end = Pagination(hasMore: false)
}
