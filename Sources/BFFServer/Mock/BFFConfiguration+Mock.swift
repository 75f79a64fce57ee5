import PageModel

extension BFFConfiguration {
    /// The local mock backend (`docs/mock.md`): hot reload, network simulation, scenarios, sessions, journal and the
    /// `/__admin` API. On in `config/default.json`, off in `config/production.json`; off by default.
    public struct Mock: Sendable, Hashable {
        public init() {}

        /// Master switch; when false the server is stateless and none of the features below exist. Default false.
        public var enabled = false
        /// Seed of the network simulation: the same seed replays the same latencies and faults. Default 1.
        public var seed: UInt64 = 1
        /// How `pages/` is watched: `auto` (inotify plus polling), `poll` (polling only) or `off`. Default `auto`.
        public var watch = Watch.auto
        /// Milliseconds between polls of the pages directory. Default 1000.
        public var pollIntervalMs = 1_000
        /// Quiet milliseconds after the last change before reloading. Default 150.
        public var debounceMs = 150
        /// Most sessions kept; the least recently used is dropped beyond it. Default 1000.
        public var sessionCap = 1_000
        /// Seconds after which an idle session expires. Default 3600.
        public var sessionIdleSeconds = 3_600.0
        /// Requests kept in the journal ring. Default 1000.
        public var journalCapacity = 1_000
        /// Bytes of each request body the journal keeps (the rest is dropped and the entry flagged `bodyTruncated`).
        /// Default 16384.
        public var journalBodyBytes = 16_384
        /// Names of the request fields whose values the journal shows as `[redacted]` (any case); a `Cookie` keeps
        /// its cookie names (`flow_session=[redacted]`). Default ``defaultJournalRedactHeaders``; `[]` keeps every
        /// value.
        public var journalRedactHeaders = Self.defaultJournalRedactHeaders
        /// Credentials and the fields that usually carry them.
        public static let defaultJournalRedactHeaders = [
            "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token",
            "X-Access-Token", "X-CSRF-Token", "X-XSRF-Token",
        ]
        static let defaultRedactedHeaders = Set(defaultJournalRedactHeaders.map { $0.lowercased() })
        /// Host names besides loopback names and IP addresses that `/__admin`, `/__preview` and the `/` index answer
        /// (the DNS-rebinding defence, ``HostPolicy``): exact names, `*.example.com` for its subdomains, `*` for any
        /// host. Default none.
        public var allowedHosts: [String] = []
        /// A new random token (32 hexadecimal digits from libcrypto), for `serve --dev` when none is configured.
        public static func randomAdminToken() -> String { Crypto.hex(Crypto.randomBytes(16)) }

        /// When set, `/__admin` also answers non-loopback peers that send `Authorization: Bearer <token>`.
        /// Default none (loopback only).
        public var adminToken: String? = nil
        /// Network simulation per route, in configuration order: `[METHOD ]/path*` → spec. Default none.
        public var faults: [FaultRule] = []

        public enum Watch: String, Sendable, Hashable, CaseIterable {
            case auto, poll, off
        }
    }
}

extension ConfigurationKey {
    /// The `mock.*` keys, appended to ``all``.
    static let mockKeys: [ConfigurationKey] = [
        .boolean(
            "mock.enabled", false,
            "Mock-backend mode: hot reload, network simulation, scenarios, sessions, journal, `/__admin` (docs/mock.md)."
        ) { $0.mock.enabled = $1 },
        .integer("mock.seed", 1, 0...9_007_199_254_740_991, "Seed of the network simulation (same seed, same delays).")
        {
            $0.mock.seed = UInt64($1)
        },
        ConfigurationKey(
            path: "mock.watch", type: .string, defaultValue: "auto",
            summary: "How pages/ is watched: `auto` (inotify + polling), `poll` (polling only) or `off`."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .string(let text) = value else { throw .wrongType("mock.watch", .string, value) }
            guard let watch = BFFConfiguration.Mock.Watch(rawValue: text) else {
                throw ConfigurationError(
                    code: "invalid_value", key: "mock.watch", message: "\"\(text)\" is not auto, poll or off")
            }
            configuration.mock.watch = watch
        },
        .integer("mock.pollIntervalMs", 1_000, 10...60_000, "Milliseconds between polls of the pages directory.") {
            $0.mock.pollIntervalMs = $1
        },
        .integer("mock.debounceMs", 150, 0...10_000, "Quiet milliseconds after the last file change before reloading.")
        {
            $0.mock.debounceMs = $1
        },
        .integer("mock.sessionCap", 1_000, 1...1_000_000, "Most sessions kept; the least recently used goes first.") {
            $0.mock.sessionCap = $1
        },
        .seconds("mock.sessionIdleSeconds", 3_600, "Seconds after which an idle session expires.") {
            $0.mock.sessionIdleSeconds = $1
        },
        .integer("mock.journalCapacity", 1_000, 1...1_000_000, "Requests kept in the journal ring (oldest dropped).") {
            $0.mock.journalCapacity = $1
        },
        .integer(
            "mock.journalBodyBytes", 16_384, 0...16_777_216,
            "Bytes of each request body the journal keeps; longer bodies are cut and flagged bodyTruncated."
        ) {
            $0.mock.journalBodyBytes = $1
        },
        .stringList(
            "mock.journalRedactHeaders",
            "Request fields the journal shows as `[redacted]` (cookies keep their names); `[]` keeps all.",
            defaultValue: BFFConfiguration.Mock.defaultJournalRedactHeaders.joined(separator: ", "),
            message: "each entry is a header field name",
            isValid: isFieldName
        ) { $0.mock.journalRedactHeaders = $1 },
        .stringList(
            "mock.allowedHosts",
            "Host names `/__admin`, `/__preview` and `/` answer besides loopback and IP addresses.",
            defaultValue: "(none: loopback names and IP addresses)",
            message: "each entry is a host name, *.domain or *", isValid: HostPolicy.isValidEntry
        ) { $0.mock.allowedHosts = $1 },
        ConfigurationKey(
            path: "mock.adminToken", type: .string, defaultValue: "(none: loopback only)",
            summary: "Lets non-loopback peers use `/__admin` with `Authorization: Bearer <token>`."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .string(let token) = value else { throw .wrongType("mock.adminToken", .string, value) }
            guard token.utf8.count >= 16 else {
                throw ConfigurationError(
                    code: "invalid_value", key: "mock.adminToken",
                    message: "an admin token needs at least 16 characters")
            }
            configuration.mock.adminToken = token
        },
        ConfigurationKey(
            path: "mock.faults", type: .object, defaultValue: "{}",
            summary: "Network simulation per route: `\"[METHOD ]/path*\": \"spec\"` (X-Flow-Mock syntax), first match."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .object(let object) = value else { throw .wrongType("mock.faults", .object, value) }
            var rules: [FaultRule] = []
            for member in object.members {
                guard case .string(let text) = member.value else {
                    throw ConfigurationError(
                        code: "invalid_value", key: "mock.faults",
                        message: "\(member.key): the spec is a string such as \"latency=200ms; status=503\"")
                }
                do {
                    rules.append(try FaultRule(pattern: member.key, spec: FaultSpec.parse(text)))
                } catch {
                    throw ConfigurationError(
                        code: "invalid_value", key: "mock.faults", message: "\(member.key): \(error)")
                }
            }
            configuration.mock.faults = rules
        },
    ]

    /// A header field name as the journal matches it: visible ASCII without a colon.
    private static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
    }
}
