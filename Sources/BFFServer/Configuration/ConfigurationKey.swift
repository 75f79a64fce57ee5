import HTTPCore
import PageModel

/// One configuration key: its dotted path, type, default and documentation, and how it is applied.
///
/// `path` is the key in the JSON files (`server.port` is `{"server": {"port": …}}`); the environment variable is
/// `FLOW_BFF_` + the path in upper snake case (`FLOW_BFF_SERVER_PORT`).
public struct ConfigurationKey: Sendable {
    public enum ValueType: String, Sendable {
        case string, integer, number, boolean
        case stringList = "array of strings"
        case object
    }

    public var path: String
    public var type: ValueType
    public var defaultValue: String
    public var summary: String
    let apply: @Sendable (inout BFFConfiguration, JSONValue) throws(ConfigurationError) -> Void

    /// The environment variable that overrides this key.
    public var environmentVariable: String {
        var name = "FLOW_BFF_"
        for character in path {
            if character == "." {
                name.append("_")
            } else if character.isUppercase {
                name.append("_")
                name.append(character)
            } else {
                name.append(Character(character.uppercased()))
            }
        }
        return name
    }

    public static func key(_ path: String) -> ConfigurationKey? { all.first { $0.path == path } }
}

extension ConfigurationKey {
    static func string(
        _ path: String, _ defaultValue: String, _ summary: String,
        _ set: @escaping @Sendable (inout BFFConfiguration, String) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(path: path, type: .string, defaultValue: defaultValue, summary: summary) {
            (configuration, value) throws(ConfigurationError) in
            guard case .string(let string) = value else { throw .wrongType(path, .string, value) }
            set(&configuration, string)
        }
    }

    /// A string key naming one of `Value`'s cases (`epoll`, `dispatch`); any other name is an `invalid_value` that
    /// lists them.
    static func choice<Value: RawRepresentable & CaseIterable & Sendable>(
        _ path: String, _ defaultValue: String, _ noun: String, _ summary: String,
        _ set: @escaping @Sendable (inout BFFConfiguration, Value) -> Void
    ) -> ConfigurationKey where Value.RawValue == String {
        ConfigurationKey(path: path, type: .string, defaultValue: defaultValue, summary: summary) {
            (configuration, value) throws(ConfigurationError) in
            guard case .string(let name) = value else { throw .wrongType(path, .string, value) }
            guard let choice = Value(rawValue: name) else {
                let names = Value.allCases.map(\.rawValue)
                throw ConfigurationError(
                    code: "invalid_value", key: path,
                    message: "\(name.debugDescription) is not \(noun): use "
                        + names.dropLast().joined(separator: ", ") + " or " + names.last!)
            }
            set(&configuration, choice)
        }
    }

    /// An integer key in `range`; `defaultText` documents a default that is not a number (`(none)`).
    static func integer(
        _ path: String, _ defaultValue: Int, _ range: ClosedRange<Int>, _ summary: String, defaultText: String? = nil,
        _ set: @escaping @Sendable (inout BFFConfiguration, Int) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(
            path: path, type: .integer, defaultValue: defaultText ?? String(defaultValue), summary: summary
        ) {
            (configuration, value) throws(ConfigurationError) in
            guard let integer = value.intValue else { throw .wrongType(path, .integer, value) }
            guard range.contains(integer) else {
                throw ConfigurationError(
                    code: "invalid_value", key: path,
                    message: "\(integer) is out of range \(range.lowerBound)...\(range.upperBound)")
            }
            set(&configuration, integer)
        }
    }

    /// Seconds in (0, 86400], or [0, 86400] when `zeroTurnsOff` (0 then means "no limit").
    static func seconds(
        _ path: String, _ defaultValue: Double, _ summary: String, zeroTurnsOff: Bool = false,
        _ set: @escaping @Sendable (inout BFFConfiguration, Double) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(path: path, type: .number, defaultValue: String(defaultValue), summary: summary) {
            (configuration, value) throws(ConfigurationError) in
            guard case .number(let number) = value else { throw .wrongType(path, .number, value) }
            guard number > 0 || (zeroTurnsOff && number == 0), number <= 86_400 else {
                let range = zeroTurnsOff ? "[0, 86400]" : "(0, 86400]"
                throw ConfigurationError(code: "invalid_value", key: path, message: "\(number) is not in \(range)")
            }
            set(&configuration, number)
        }
    }

    static func boolean(
        _ path: String, _ defaultValue: Bool, _ summary: String,
        _ set: @escaping @Sendable (inout BFFConfiguration, Bool) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(path: path, type: .boolean, defaultValue: String(defaultValue), summary: summary) {
            (configuration, value) throws(ConfigurationError) in
            guard case .bool(let bool) = value else { throw .wrongType(path, .boolean, value) }
            set(&configuration, bool)
        }
    }

    /// An array of strings, each accepted by `isValid` (default: non-empty), else `message` names what an entry is.
    static func stringList(
        _ path: String, _ summary: String, defaultValue: String = "[]",
        message: String = "each entry is a non-empty string",
        isValid: @escaping @Sendable (String) -> Bool = { !$0.isEmpty },
        _ set: @escaping @Sendable (inout BFFConfiguration, [String]) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(path: path, type: .stringList, defaultValue: defaultValue, summary: summary) {
            (configuration, value) throws(ConfigurationError) in
            guard case .array(let elements) = value else { throw .wrongType(path, .stringList, value) }
            var strings: [String] = []
            for element in elements {
                guard case .string(let string) = element, isValid(string) else {
                    throw ConfigurationError(code: "invalid_value", key: path, message: message)
                }
                strings.append(string)
            }
            set(&configuration, strings)
        }
    }

    /// Every key, in the order `config/README.md` lists them.
    public static let all: [ConfigurationKey] = serverKeys + mockKeys + previewKeys + tracingKeys + proxyKeys + tlsKeys

    static let serverKeys: [ConfigurationKey] = [
        .string("server.host", "127.0.0.1", "IPv4 or IPv6 literal to bind (`0.0.0.0` or `::` for all interfaces).") {
            $0.server.host = $1
        },
        .integer("server.port", 8080, 0...65_535, "TCP port; 0 picks a free port (printed at start).") {
            $0.server.port = $1
        },
        .integer(
            "server.adminPort", 0, 0...65_535,
            "Port of a second listener for `/healthz`, `/readyz` and `/metrics` (probes and scrapes, answered at "
                + "the public connection cap); when set, `/metrics` leaves the public port. 0 picks a free port.",
            defaultText: "(none)"
        ) {
            $0.server.adminPort = $1
        },
        .integer("server.workers", 0, 0...256, "Event-loop threads; 0 means one per core.") { $0.server.workers = $1 },
        .choice(
            "server.eventLoop", HTTPServer.Configuration.EventLoopKind.platformDefault.rawValue, "an event loop",
            "`epoll` (Linux: threads in `epoll_wait`, `sendfile`) or `dispatch` (portable Dispatch sources); "
                + "the default is `epoll` on Linux, `dispatch` elsewhere."
        ) { (configuration, kind: HTTPServer.Configuration.EventLoopKind) in configuration.server.eventLoop = kind },
        .seconds(
            "server.shutdownGraceSeconds", 0,
            "Seconds the server keeps accepting and serving after SIGTERM or SIGINT while `/readyz` answers 503 "
                + "(every response `Connection: close`), before it refuses new connections and drains; a second "
                + "signal ends it at once. 0 drains at once.", zeroTurnsOff: true
        ) { $0.server.shutdownGraceSeconds = $1 },
        .seconds(
            "server.drainSeconds", 10,
            "Seconds in-flight requests get to finish once new connections are refused (after the grace period)."
        ) { $0.server.drainSeconds = $1 },
        .integer(
            "server.representationCacheEntries", 4_096, 1...1_000_000,
            "Encoded page bodies (first loads and chunks) kept per cache generation; up to twice as many are held."
        ) { $0.server.representationCacheEntries = $1 },
        .string("pages.directory", "pages", "Directory of page files (see pages/README.md).") {
            $0.pages.directory = $1
        },
        .integer(
            "pages.defaultPageSize", 20, 0...100_000,
            "Sections per pagination chunk for pages without `server.pageSize`; 0 serves whole pages."
        ) { $0.pages.defaultPageSize = $1 },
        .string(
            "pages.cacheControl", "no-cache", "`Cache-Control` for pages without `server.cacheControl`."
        ) { $0.pages.cacheControl = $1 },
        .string(
            "pages.fakeImageURL", "https://placehold.co/{width}x{height}?text={n}",
            "The placeholder image service of `{{fake.image WIDTH HEIGHT}}` in data files and templates; `{width}`, "
                + "`{height}` and `{n}` (a number drawn from the seed) are filled."
        ) { $0.pages.fakeImageURL = $1 },
        .stringList(
            "pages.customWidgetTypes",
            "Widget types outside the catalog that your apps render; `check` and reloads accept them instead of "
                + "reporting a typo. Types starting with `x-` are always accepted (docs/check.md)."
        ) { $0.pages.customWidgetTypes = $1 },
        .stringList(
            "pages.customActionTypes",
            "Action and effect types outside the built-ins that your apps handle; `x-` types are always accepted."
        ) { $0.pages.customActionTypes = $1 },
        ConfigurationKey(
            path: "cursors.key", type: .string, defaultValue: "(random per process)",
            summary:
                "HMAC-SHA256 key for pagination cursors, at least 32 characters, shared by all replicas. "
                + "Also `FLOW_BFF_CURSOR_KEY`."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .string(let key) = value else { throw .wrongType("cursors.key", .string, value) }
            guard key.utf8.count >= 32 else {
                throw ConfigurationError(
                    code: "invalid_value", key: "cursors.key", message: "a cursor key needs at least 32 characters")
            }
            configuration.cursors.key = key
        },
        ConfigurationKey(
            path: "cursors.previousKeys", type: .stringList, defaultValue: "[]",
            summary: "Older cursor keys still accepted (never used to sign) while a key rotation rolls out."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .array(let elements) = value else {
                throw .wrongType("cursors.previousKeys", .stringList, value)
            }
            var keys: [String] = []
            for element in elements {
                guard case .string(let key) = element, key.utf8.count >= 32 else {
                    throw ConfigurationError(
                        code: "invalid_value", key: "cursors.previousKeys",
                        message: "each previous key must be a string of at least 32 characters")
                }
                keys.append(key)
            }
            configuration.cursors.previousKeys = keys
        },
        .boolean("cursors.requireKey", false, "Refuse to start without `cursors.key` (set in production).") {
            $0.cursors.requireKey = $1
        },
        .integer("cursors.maximumLength", 2048, 64...65_536, "Longest postback accepted, checked before decoding.") {
            $0.cursors.maximumLength = $1
        },
        .integer(
            "http.maximumActionBodyBytes", 65_536, 1...16_777_216,
            "Largest api action or next-page request body → 413 `body_too_large`."
        ) { $0.http.maximumActionBodyBytes = $1 },
        .seconds("http.headerTimeoutSeconds", 10, "Seconds to receive a request head → 408 and close.") {
            $0.http.headerTimeoutSeconds = $1
        },
        .seconds(
            "http.idleTimeoutSeconds", 30,
            "Seconds a keep-alive connection may stay silent after its last activity before it is closed."
        ) {
            $0.http.idleTimeoutSeconds = $1
        },
        .seconds(
            "http.maximumConnectionAgeSeconds", 0,
            "Seconds after its accept when a connection is ended between requests (the next response says "
                + "`Connection: close`); 0 for no limit.",
            zeroTurnsOff: true
        ) {
            $0.http.maximumConnectionAgeSeconds = $1
        },
        .integer("http.maximumConnections", 10_000, 1...1_000_000, "Most simultaneously open connections.") {
            $0.http.maximumConnections = $1
        },
        .integer(
            "http.reservedProbeConnections", 16, 0...1_024,
            "Connections over `http.maximumConnections` still answered for `/healthz` and `/readyz` (one request each)."
        ) {
            $0.http.reservedProbeConnections = $1
        },
        ConfigurationKey(
            path: "http.corsOrigins", type: .stringList, defaultValue: "(loopback origins in mock mode, else none)",
            summary:
                "Browser origins allowed to call from another origin (CORS): exact origins, `scheme://host:*` for "
                + "any port, or `*`."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .array(let elements) = value else { throw .wrongType("http.corsOrigins", .stringList, value) }
            var origins: [String] = []
            for element in elements {
                guard case .string(let origin) = element,
                    origin == "*" || origin.hasPrefix("http://") || origin.hasPrefix("https://")
                else {
                    throw ConfigurationError(
                        code: "invalid_value", key: "http.corsOrigins",
                        message: "each origin is \"*\" or starts with http:// or https://")
                }
                origins.append(origin)
            }
            configuration.http.corsOrigins = origins
        },
        .seconds(
            "actions.idempotencySeconds", 86_400,
            "Seconds the answer to an api action request with an `Idempotency-Key` is kept for replay."
        ) { $0.actions.idempotencySeconds = $1 },
        ConfigurationKey(
            path: "actions.redisUrl", type: .string, defaultValue: "",
            summary:
                "`redis://[[user]:password@]host[:port][/database]` of a Redis server keeping `Idempotency-Key` "
                + "answers for every replica; empty keeps them in memory (one replica)."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .string(let url) = value else { throw .wrongType("actions.redisUrl", .string, value) }
            guard url.isEmpty || RedisEndpoint(url: url) != nil else {
                throw ConfigurationError(
                    code: "invalid_value", key: "actions.redisUrl",
                    message: "expected redis://[[user]:password@]host[:port][/database]")
            }
            configuration.actions.redisURL = url
        },
        .seconds(
            "actions.redisTimeoutSeconds", 0.25,
            "Seconds a Redis command may take before a keyed action is refused 503 (fail closed)."
        ) { $0.actions.redisTimeoutSeconds = $1 },
        .string("actions.redisKeyPrefix", "flow-bff:idempotency:", "Prefix of the idempotency keys in Redis.") {
            $0.actions.redisKeyPrefix = $1
        },
        .boolean(
            "logging.accessLog", true,
            "One JSON access-log line per request on standard output (a compact line with `logging.format` `human`)."
        ) {
            $0.logging.accessLog = $1
        },
        .boolean("logging.metrics", true, "Serve Prometheus metrics at `/metrics`.") { $0.logging.metrics = $1 },
        .choice(
            "logging.format", "auto", "a log format",
            "`human` (compact lines for a terminal, findings as `file:line:column`), `json` (one JSON object per "
                + "line) or `auto`: `human` in mock mode on a terminal, else `json`."
        ) { (configuration, format: BFFConfiguration.LogFormat) in configuration.logging.format = format },
        .stringList(
            "logging.trustedProxies",
            "Addresses of the proxies in front of the server (`10.0.0.2`, `::1`): for a request from one of them the "
                + "access log's `client` is the last `X-Forwarded-For` address that is not one of them; from any other "
                + "peer `X-Forwarded-For` is ignored."
        ) { $0.logging.trustedProxies = $1 },
    ]
}

/// A configuration problem: the file (or `environment` / `flags`), the key and what is wrong. Startup stops.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `unknown_key`, `invalid_value`, `invalid_json`, `missing_file`, `missing_cursor_key`.
    public var code: String
    public var key: String
    public var message: String
    /// Where the value came from: a file path, `environment` or `flags`.
    public var source: String = ""

    public init(code: String, key: String, message: String, source: String = "") {
        self.code = code
        self.key = key
        self.message = message
        self.source = source
    }

    static func wrongType(_ key: String, _ type: ConfigurationKey.ValueType, _ value: JSONValue) -> ConfigurationError {
        ConfigurationError(
            code: "invalid_value", key: key, message: "expected \(type.rawValue), found \(value.typeName)")
    }

    public var description: String {
        [source, key, code, message].filter { !$0.isEmpty }.joined(separator: ": ")
    }
}
