/// What a widget or section needs from the client, and what to show instead when the client lacks it.
///
/// Wire form (members of a widget or section object; all optional, docs/contract.md § 17):
/// `"minAppVersion": "3.2.0"` or `{"ios": "3.2.0", "android": "3.1.0", "*": "3.0.0"}`,
/// `"requires": ["button@2", "haptics"]`, `"fallback": "drop" | {"widget": Widget} | {"category": "list_row"}`
/// (sections: `"drop"` or `{"section": Section}`). Servers resolve them per client and strip them.
public struct Compatibility: Sendable, Hashable {
    /// What is declared, boxed: most widgets and sections declare nothing and then carry one `nil` reference
    /// instead of three fields (a widget or section of a long page is some 30 bytes smaller; issue 19).
    private final class Storage: Sendable {
        let minAppVersion: MinimumAppVersion?
        let requires: [Requirement]
        let fallback: Fallback?

        init(minAppVersion: MinimumAppVersion?, requires: [Requirement], fallback: Fallback?) {
            self.minAppVersion = minAppVersion
            self.requires = requires
            self.fallback = fallback
        }
    }

    /// `nil` when nothing is declared.
    private var storage: Storage?

    public var minAppVersion: MinimumAppVersion? {
        get { storage?.minAppVersion }
        set { self = Compatibility(minAppVersion: newValue, requires: requires, fallback: fallback) }
    }

    public var requires: [Requirement] {
        get { storage?.requires ?? [] }
        set { self = Compatibility(minAppVersion: minAppVersion, requires: newValue, fallback: fallback) }
    }

    public var fallback: Fallback? {
        get { storage?.fallback }
        set { self = Compatibility(minAppVersion: minAppVersion, requires: requires, fallback: newValue) }
    }

    public init(minAppVersion: MinimumAppVersion? = nil, requires: [Requirement] = [], fallback: Fallback? = nil) {
        if minAppVersion != nil || !requires.isEmpty || fallback != nil {
            storage = Storage(minAppVersion: minAppVersion, requires: requires, fallback: fallback)
        }
    }

    /// True when nothing is declared.
    public var isEmpty: Bool { storage == nil }

    public static func == (lhs: Compatibility, rhs: Compatibility) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.minAppVersion == rhs.minAppVersion && lhs.requires == rhs.requires && lhs.fallback == rhs.fallback)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(minAppVersion)
        hasher.combine(requires)
        hasher.combine(fallback)
    }
}

/// The lowest app version that may see an element, for every platform (`*`) or per platform.
public struct MinimumAppVersion: Sendable, Hashable {
    /// Platform (lowercased) → version; `*` applies to platforms not listed.
    public var versions: [String: AppVersion]

    public init(_ versions: [String: AppVersion]) {
        self.versions = Dictionary(uniqueKeysWithValues: versions.map { ($0.key.lowercased(), $0.value) })
    }

    /// The same minimum on every platform.
    public static func all(_ version: AppVersion) -> MinimumAppVersion { MinimumAppVersion(["*": version]) }

    /// The minimum for `platform` (its own entry, else `*`), `nil` when none applies.
    public func version(for platform: String?) -> AppVersion? {
        platform.flatMap { versions[$0] } ?? versions["*"]
    }
}

/// What replaces an element the client cannot render.
public enum Fallback: Sendable, Hashable {
    /// Remove it (the default when no fallback is declared).
    case drop
    /// Show this widget instead (itself resolved: it may carry its own fallback). A replacement without an id
    /// takes the id of the widget it replaces, so widget state stays keyed the same.
    indirect case widget(Widget)
    /// Convert to a generic widget type that reuses the content (see ``GenericCategory``).
    case category(String)
    /// Show this section instead (sections only).
    indirect case section(Section)
}
