import PageModel

/// What a pagination postback binds: the page, its parameters, the content version it was issued for and the
/// position of the next section to serve.
public struct Cursor: Sendable, Hashable {
    public var pageID: String
    /// The page's content version when the cursor was issued (see ``CatalogPage/version``).
    public var version: String
    /// Index of the first section the next chunk serves.
    public var position: Int
    /// Page parameters (the initial request's query), sorted by name.
    public var parameters: [String: String]
    /// The client's capability profile key (``ClientCapabilities/profileKey``) when the first page was resolved
    /// for a client; chunks are resolved the same way.
    public var profile: String?
    /// The locale the first page was served in, for localized pages.
    public var locale: String?

    public init(
        pageID: String, version: String, position: Int, parameters: [String: String] = [:], profile: String? = nil,
        locale: String? = nil
    ) {
        self.pageID = pageID
        self.version = version
        self.position = position
        self.parameters = parameters
        self.profile = profile
        self.locale = locale
    }

    var json: JSONValue {
        var object = JSONObject()
        object["p"] = .string(pageID)
        object["v"] = .string(version)
        object["o"] = .number(Double(position))
        if !parameters.isEmpty {
            object["q"] = .object(
                JSONObject(parameters.keys.sorted().map { .init(key: $0, value: .string(parameters[$0]!)) }))
        }
        if let profile { object["c"] = .string(profile) }
        if let locale { object["l"] = .string(locale) }
        return .object(object)
    }

    init?(json: JSONValue) {
        guard case .string(let pageID)? = json["p"], case .string(let version)? = json["v"],
            let position = json["o"]?.intValue, position >= 0
        else { return nil }
        var parameters: [String: String] = [:]
        if let query = json["q"] {
            guard case .object(let object) = query else { return nil }
            for member in object.members {
                guard case .string(let value) = member.value else { return nil }
                parameters[member.key] = value
            }
        }
        let profile = json["c"]?.stringValue
        let locale = json["l"]?.stringValue
        guard (json["c"] == nil || profile != nil) && (json["l"] == nil || locale != nil) else { return nil }
        self.init(
            pageID: pageID, version: version, position: position, parameters: parameters, profile: profile,
            locale: locale)
    }
}
