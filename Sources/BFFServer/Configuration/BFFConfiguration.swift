import HTTPCore
import PageModel

/// Everything configurable about a flow-bff server, nested by concern, with documented defaults.
///
/// Filled from `config/*.json`, then `FLOW_BFF_*` environment variables, then command-line flags — by
/// ``ConfigurationLoader`` and nothing else. `config/README.md` lists every key; ``ConfigurationKey/all`` is the
/// single table both the loader and that document follow.
public struct BFFConfiguration: Sendable, Hashable {
    public var server = Server()
    public var pages = Pages()
    public var cursors = Cursors()
    public var http = HTTP()
    public var actions = Actions()
    public var logging = Logging()
    /// Local mock-backend features (`docs/mock.md`); all off unless ``Mock/enabled``.
    public var mock = Mock()
    /// The browser preview at `/__preview` (docs/preview.md); on when mock mode is, unless set.
    public var preview = Preview()
    /// Distributed tracing over OTLP (docs/operations.md, "Tracing"); off unless enabled or `OTEL_*` says so.
    public var tracing = Tracing()
    /// The proxy in front of a real backend (docs/proxy.md); off unless `proxy.upstream` is set.
    public var proxy = Proxy()
    /// HTTPS beside HTTP (docs/mock.md, docs/operations.md); off unless `tls.port` is set.
    public var tls = TLS()

    public init() {}

    /// Api actions answered by Swift handlers (docs/actions.md).
    public struct Actions: Sendable, Hashable {
        public init() {}

        /// Seconds the answer to a request with an `Idempotency-Key` is kept for replay. Default 86400 (a day).
        public var idempotencySeconds = 86_400.0
        /// `redis://[[user]:password@]host[:port][/database]` of the Redis server that keeps `Idempotency-Key`
        /// answers for every replica; empty keeps them in memory (one replica). Default empty.
        public var redisURL = ""
        /// Seconds a Redis command may take before a keyed action is refused (503, fail closed). Default 0.25.
        public var redisTimeoutSeconds = 0.25
        /// Prefix of the Redis keys. Default `flow-bff:idempotency:`.
        public var redisKeyPrefix = "flow-bff:idempotency:"
    }

    /// Where to listen.
    public struct Server: Sendable, Hashable {
        public init() {}

        /// IPv4 or IPv6 literal to bind. Default `127.0.0.1`.
        public var host = "127.0.0.1"
        /// TCP port; 0 picks a free one. Default 8080.
        public var port = 8080
        /// Event-loop threads; 0 means one per core. Default 0.
        public var workers = 0
        /// `epoll` (Linux's fast path) or `dispatch` (portable Dispatch sources). Default `epoll` on Linux,
        /// `dispatch` elsewhere.
        public var eventLoop = HTTPServer.Configuration.EventLoopKind.platformDefault
        /// Seconds the server keeps accepting and serving after SIGTERM or SIGINT, with `/readyz` answering 503 and
        /// every response `Connection: close`, so a load balancer probing readiness stops sending here before new
        /// connections are refused; a second signal ends it at once. `0` drains at once (local development).
        /// Default 0; `config/production.json` 10.
        public var shutdownGraceSeconds = 0.0
        /// Seconds in-flight requests get to finish once new connections are refused (after the grace period).
        /// Default 10.
        public var drainSeconds = 10.0
        /// A second listener, on `host` and this port, for `/healthz`, `/readyz` and `/metrics` only (probes and
        /// scrapes, with connections of its own, answered at the public listener's connection cap); when set,
        /// `/metrics` is served there and no longer on the public port. `0` picks a free port. Default `nil` (none).
        public var adminPort: Int? = nil
        /// Encoded page bodies (first loads and chunks) kept per cache generation; up to twice as many are held.
        /// Default 4096.
        public var representationCacheEntries = 4_096
    }

    /// The page catalog.
    public struct Pages: Sendable, Hashable {
        public init() {}

        /// Directory of page files. Default `pages`.
        public var directory = "pages"
        /// Sections per pagination chunk for pages that do not set `server.pageSize`; 0 serves whole pages.
        /// Default 20.
        public var defaultPageSize = 20
        /// `Cache-Control` for pages that do not set `server.cacheControl`. Default `no-cache` (revalidate with the
        /// ETag every time).
        public var cacheControl = "no-cache"
        /// The placeholder image service `{{fake.image WIDTH HEIGHT}}` points at (pages/README.md § Fake data):
        /// `{width}`, `{height}` and `{n}` (a number from the seed) are filled. Default placehold.co.
        public var fakeImageURL = "https://placehold.co/{width}x{height}?text={n}"
        /// Widget types outside the catalog that the apps render: `flow-bff check` and the server accept them
        /// (types starting with `x-` are always accepted). Default `[]` (docs/check.md).
        public var customWidgetTypes: [String] = []
        /// Action and effect types outside the built-ins that the apps handle; `x-` types are always accepted.
        /// Default `[]`.
        public var customActionTypes: [String] = []
        /// Whether pages and actions no local file declares are served elsewhere — by the proxy's upstream, set
        /// with `proxy.upstream` (docs/proxy.md): a reference to one is then a warning, not an error, so a folder
        /// holding only the page being changed loads. Default false.
        public var referencesMayBeRemote = false

        /// The authoring rule for types these settings give (PageModel's ``AuthoringTypes``).
        public var authoringTypes: AuthoringTypes {
            AuthoringTypes(customWidgetTypes: customWidgetTypes, customActionTypes: customActionTypes)
        }
    }

    /// Signed pagination cursors.
    public struct Cursors: Sendable, Hashable {
        public init() {}

        /// HMAC-SHA256 key shared by all replicas (at least 32 characters). Also `FLOW_BFF_CURSOR_KEY`.
        /// Default none: a random key per process, so cursors do not survive a restart or cross replicas.
        public var key: String? = nil
        /// Older keys still accepted for verification during a key rotation (never used to sign). Default `[]`.
        public var previousKeys: [String] = []
        /// Refuse to start without `key` (production). Default false.
        public var requireKey = false
        /// Longest postback accepted, checked before any decoding. Default 2048.
        public var maximumLength = 2048
    }

    /// HTTP limits (HTTPCore's, see docs/http.md) and the api action body limit.
    public struct HTTP: Sendable, Hashable {
        public init() {}

        /// Largest api action or next-page request body in bytes → 413 `body_too_large`. Default 65536.
        public var maximumActionBodyBytes = 65_536
        /// Seconds to receive a request head → 408. Default 10.
        public var headerTimeoutSeconds = 10.0
        /// Seconds a keep-alive connection may stay silent after its last request before it is closed; a busy
        /// connection is never cut by it. Default 30.
        public var idleTimeoutSeconds = 30.0
        /// Seconds after its accept when a connection is ended between two requests: the next response says
        /// `Connection: close`. `0` sets no limit. Default 0.
        public var maximumConnectionAgeSeconds = 0.0
        /// Most open connections. Default 10000.
        public var maximumConnections = 10_000
        /// Connections beyond `maximumConnections` that may still ask `/healthz` or `/readyz` (one request each, 503
        /// `too_many_connections` for any other path). Default 16.
        public var reservedProbeConnections = 16
        /// Browser origins allowed to call from another origin (CORS): exact origins, `scheme://host:*` for any
        /// port, or `*`. `nil` (the default) allows the loopback origins in mock mode and none in production.
        public var corsOrigins: [String]? = nil
    }

    /// Access log and metrics.
    public struct Logging: Sendable, Hashable {
        public init() {}

        /// One JSON access-log line per request on standard output. Default true.
        public var accessLog = true
        /// Serve Prometheus metrics at `/metrics`. Default true.
        public var metrics = true
        /// How `flow-bff serve` writes its lines. Default ``LogFormat/auto``.
        public var format = LogFormat.auto
        /// Addresses of the proxies in front of the server (load balancers, ingress): for a request from one of
        /// them, the access log's `client` is the last `X-Forwarded-For` address that is not one of them. From any
        /// other peer `X-Forwarded-For` is ignored (anyone can send it). Default none.
        public var trustedProxies: [String] = []
    }

    /// The form of the server's log lines on standard output.
    public enum LogFormat: String, Sendable, Hashable, CaseIterable {
        /// `human` in mock mode when standard output is a terminal, else `json` (production always `json`).
        case auto
        /// One JSON object per line (access lines and events): what log collectors read.
        case json
        /// For a person at a terminal (``HumanLogSink``): compact access lines coloured by status, page-file
        /// findings as `file:line:column: severity: code: message`.
        case human
    }
}
