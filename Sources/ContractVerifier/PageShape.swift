import PageModel

/// What an app keys on in one crawled page: its section ids, its widget ids with their types, the events each
/// widget declares and what they fire, and the capability requirements elements carry — the whole paginated
/// document the crawl saw, before any action changed it. Two versions of a server are compared shape against shape
/// (``ReportDiff``, `verify --baseline`).
///
/// Ids the decoder generated (`type@codingPath`, ``Widget/isGeneratedID``) name a position, not an element, and
/// are left out; a generated widget's children with backend ids are kept (their key skips the generated parent).
public struct PageShape: Sendable, Hashable, Codable {
    /// Section ids with backend ids, in document order.
    public var sections: [String] = []
    /// Header widget ids, in order.
    public var header: [String] = []
    /// Footer widget ids, in order.
    public var footer: [String] = []
    /// Every widget by key: a top-level widget's id, a nested widget's ids from its outermost stable ancestor
    /// down, joined by `/` (`recommendations/card.p-9`; children are unique among their siblings only).
    public var widgets: [String: WidgetShape] = [:]
    /// Capability requirements of the sections that declare any, by section id.
    public var sectionRequirements: [String: CapabilityRequirements] = [:]

    public init() {}

    /// The shape of `page` as decoded (not resolved for a client, so `requires` and `minAppVersion` are kept).
    public init(_ page: PageModel) {
        header = page.header.filter { !$0.isGeneratedID }.map(\.id)
        footer = page.footer.filter { !$0.isGeneratedID }.map(\.id)
        record(page.header, parent: nil)
        for section in page.sections {
            if !section.isGeneratedID {
                sections.append(section.id)
                let requirements = CapabilityRequirements(section.compatibility)
                if !requirements.isEmpty { sectionRequirements[section.id] = requirements }
            }
            record(section.widgets, parent: nil)
        }
        record(page.footer, parent: nil)
    }

    private mutating func record(_ widgets: [Widget], parent: String?) {
        for widget in widgets {
            var key = parent
            if !widget.isGeneratedID {
                let own = parent.map { "\($0)/\(widget.id)" } ?? widget.id
                key = own
                // The first holder of a key keeps it, as the decoder's first holder keeps an id.
                if self.widgets[own] == nil { self.widgets[own] = WidgetShape(widget) }
            }
            record(widget.children, parent: key)
        }
    }
}

/// One widget of a ``PageShape``: its type, its events and its capability requirements.
public struct WidgetShape: Sendable, Hashable, Codable {
    public var type: String
    /// Event → what it fires: `api NAME` for an api action, else the action's type (`open_bottom_sheet`).
    public var actions: [String: String] = [:]
    /// `requires` and `minAppVersion`; empty for most widgets.
    public var requirements = CapabilityRequirements()

    public init(type: String, actions: [String: String] = [:], requirements: CapabilityRequirements = .init()) {
        self.type = type
        self.actions = actions
        self.requirements = requirements
    }

    init(_ widget: Widget) {
        type = widget.type
        for (event, action) in widget.actions { actions[event] = Self.describe(action) }
        requirements = CapabilityRequirements(widget.compatibility)
    }

    /// `api NAME` or the action type.
    static func describe(_ action: Action) -> String {
        if case .api(let name, _) = action { return "\(ActionType.api) \(name)" }
        return action.type
    }

    private enum CodingKeys: String, CodingKey {
        case type, actions, requirements
    }

    // Most widgets declare no action and no requirement: those members are left out of the JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        actions = try container.decodeIfPresent([String: String].self, forKey: .actions) ?? [:]
        requirements =
            try container.decodeIfPresent(CapabilityRequirements.self, forKey: .requirements)
            ?? CapabilityRequirements()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        if !actions.isEmpty { try container.encode(actions, forKey: .actions) }
        if !requirements.isEmpty { try container.encode(requirements, forKey: .requirements) }
    }
}

/// What an element needs from the app (docs/contract.md § 17): its `requires` entries and its `minAppVersion`.
public struct CapabilityRequirements: Sendable, Hashable, Codable {
    /// `name` or `name@version`, sorted.
    public var requires: [String] = []
    /// Platform (`*` for every platform not listed) → lowest app version.
    public var minAppVersion: [String: String] = [:]

    public init(requires: [String] = [], minAppVersion: [String: String] = [:]) {
        self.requires = requires
        self.minAppVersion = minAppVersion
    }

    init(_ compatibility: Compatibility) {
        requires = compatibility.requires.map(\.description).sorted()
        for (platform, version) in compatibility.minAppVersion?.versions ?? [:] {
            minAppVersion[platform] = version.description
        }
    }

    public var isEmpty: Bool { requires.isEmpty && minAppVersion.isEmpty }
}
