/// Every response body of the contract: `{"schemaVersion": 1, "kind": …}` plus the kind's payload.
public enum Envelope: Sendable, Hashable {
    /// `{"schemaVersion", "kind": "page", "page": Page}` — `GET /v1/pages/{pageID}`.
    case page(PageModel)
    /// `{"schemaVersion", "kind": "nextPage", "sections", "pagination"}` — `GET /v1/pages/{pageID}/next`.
    case nextPage(NextPage)
    /// `{"schemaVersion", "kind": "actionResponse", "mutations", "effects"}` — `POST /v1/actions/{name}`.
    case actionResponse(ActionResponse)

    /// The schema version this codec writes and the highest it reads.
    public static let schemaVersion = 1

    public var kind: Kind {
        switch self {
        case .page: .page
        case .nextPage: .nextPage
        case .actionResponse: .actionResponse
        }
    }

    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case page
        case nextPage
        case actionResponse
    }
}

/// One chunk of sections that continues a paginated page.
public struct NextPage: Sendable, Hashable {
    public var sections: [Section]
    public var pagination: Pagination

    public init(sections: [Section], pagination: Pagination) {
        self.sections = sections
        self.pagination = pagination
    }
}

/// The answer to an api action: document mutations to apply in order, then effects to run.
public struct ActionResponse: Sendable, Hashable {
    public var mutations: [PageMutation]
    /// Actions to run after the mutations (a toast, a dismiss, …).
    public var effects: [Action]

    public init(mutations: [PageMutation] = [], effects: [Action] = []) {
        self.mutations = mutations
        self.effects = effects
    }
}
