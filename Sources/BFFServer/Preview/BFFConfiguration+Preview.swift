import PageModel

extension BFFConfiguration {
    /// The browser preview at `/__preview` (docs/preview.md).
    public struct Preview: Sendable, Hashable {
        public init() {}

        /// `true` serves `/__preview`, `false` never does; `nil` (the default) follows ``Mock/enabled``, so the
        /// preview is on in mock mode (`config/default.json`) and off in production (`config/production.json`).
        public var enabled: Bool? = nil
        /// The capability profiles offered in the preview's client menu. Default `config/capability-profiles.json`;
        /// a missing file leaves only the client that sends no `X-Flow-Client`.
        public var profiles = "config/capability-profiles.json"
    }

    /// Whether `/__preview` is served: ``Preview/enabled`` when set, else ``Mock/enabled``.
    public var servesPreview: Bool { preview.enabled ?? mock.enabled }
}

extension ConfigurationKey {
    /// The `preview.*` keys, appended to ``all``.
    static let previewKeys: [ConfigurationKey] = [
        ConfigurationKey(
            path: "preview.enabled", type: .boolean, defaultValue: "(same as mock.enabled)",
            summary: "Serve the browser preview at `/__preview` (docs/preview.md). Also `--preview true|false`."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .bool(let bool) = value else { throw .wrongType("preview.enabled", .boolean, value) }
            configuration.preview.enabled = bool
        },
        .string(
            "preview.profiles", "config/capability-profiles.json",
            "Capability profiles offered in the preview's client menu (a missing file offers none)."
        ) { $0.preview.profiles = $1 },
    ]
}
