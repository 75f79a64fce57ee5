#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPServer {
    /// Everything configurable about an ``HTTPServer``, with documented defaults (also listed in `docs/http.md`).
    public struct Configuration: Sendable {
        /// Address to bind: an IPv4 or IPv6 literal (`"127.0.0.1"`, `"::1"`, `"0.0.0.0"`, `"::"`).
        /// Default `"127.0.0.1"`.
        public var host: String = "127.0.0.1"
        /// TCP port; `0` binds an ephemeral port, reported by ``HTTPServer/port`` after `start()`. Default `8080`.
        public var port: Int = 8080
        /// Number of event loops (one epoll thread, or one Dispatch queue, each). Default: the number of online cores.
        public var workerThreads: Int = Configuration.onlineCores
        /// Which event loop serves connections: `epoll` (Linux) or `dispatch` (portable). Default: `epoll` on Linux,
        /// `dispatch` elsewhere.
        public var eventLoop: EventLoopKind = .platformDefault
        /// `listen(2)` backlog. Default `1024`.
        public var backlog: Int32 = 1024
        /// Request size and connection limits.
        public var limits = Limits()
        /// Timeouts.
        public var timeouts = Timeouts()
        /// On-the-fly gzip of dynamic bodies.
        public var compression = Compression()
        /// Value of the `Server` response header; `nil` sends none. Default `nil`.
        public var serverName: String?
        /// HTTPS for every connection (certificate and key files, reloaded when they change); `nil`: cleartext.
        public var tls: TLS?

        public init() {}

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// Request size and connection limits. Each violation is answered with a problem+json body and
        /// `Connection: close`.
        public struct Limits: Sendable, Equatable {
            /// Longest request line (method, target, version) in bytes → **414**. Default 8 KiB.
            public var maxRequestLineLength: Int = 8 * 1024
            /// Longest single header (or trailer) field line in bytes → **431**. Default 8 KiB.
            public var maxHeaderFieldLength: Int = 8 * 1024
            /// Largest header section (all field lines after the request line, in bytes) → **431**.
            /// Also bounds a chunked body's trailer section. Default 32 KiB.
            public var maxHeaderSectionSize: Int = 32 * 1024
            /// Most header fields in one request (also trailer fields) → **431**. Default 100.
            public var maxHeaderCount: Int = 100
            /// Largest request body in bytes → **413**; decided from `Content-Length` before reading the body,
            /// counted while reading a chunked body. Default 1 MiB.
            public var maxBodySize: Int = 1024 * 1024
            /// Longest chunk-size line including chunk extensions → **400**. Default 1 KiB.
            public var maxChunkLineLength: Int = 1024
            /// Requests served on one connection before the server answers with `Connection: close`.
            /// Default 10 000.
            public var maxRequestsPerConnection: Int = 10_000
            /// Most simultaneously open client connections; beyond this new connections get a 503 and are
            /// closed (except in the reserved slots below). Default 10 000.
            public var maxConnections: Int = 10_000
            /// Connections accepted beyond ``maxConnections`` that may still ask for one of ``reservedPaths``
            /// (liveness and readiness probes under a connection flood): each answers one request, a reserved path
            /// normally and any other path with 503 `too_many_connections`, then closes. `0` turns the reserve off.
            /// Default 16.
            public var reservedConnections: Int = 16
            /// Paths (exact, without query) answered on a reserved connection. Default `/healthz`, `/readyz`.
            public var reservedPaths: Set<String> = ["/healthz", "/readyz"]

            public init() {}
        }

        /// Timeouts; each expiry closes the connection.
        public struct Timeouts: Sendable, Equatable {
            /// Time allowed to receive a complete request head, counted from the connection's accept or the
            /// first byte of a keep-alive request → **408** and close. Default 10 s.
            public var headerRead: Duration = .seconds(10)
            /// Time allowed to receive a whole request body after its head → **408** and close. Default 30 s.
            public var bodyRead: Duration = .seconds(30)
            /// How long a keep-alive connection may stay silent between requests before it is closed (silently):
            /// counted from the connection's last activity (the last request answered, the last byte written), so
            /// a busy connection is never cut by it. Default 30 s.
            public var idle: Duration = .seconds(30)
            /// Oldest age of a connection, counted from its accept, after which the next response carries
            /// `Connection: close` and the connection closes once it is sent. A connection is only ended between
            /// requests, never mid-request; an idle one is left to ``idle``. Spreads long-lived clients over new
            /// replicas after a scale-out. `nil` (the default) sets no limit.
            public var maximumConnectionAge: Duration? = nil
            /// How long a client may leave the server unable to write before the connection is dropped.
            /// Default 30 s.
            public var write: Duration = .seconds(30)
            /// Default drain time of ``HTTPServer/shutdown(gracePeriod:drainTimeout:)`` and of the signal handler. Default
            /// 10 s.
            public var drain: Duration = .seconds(10)

            public init() {}
        }

        /// On-the-fly gzip for ``HTTPResponse/Body/bytes`` bodies (``PreparedBody`` is compressed once instead).
        public struct Compression: Sendable, Equatable {
            /// Compress dynamic bodies when the client accepts gzip. Default `true`.
            public var enabled: Bool = true
            /// Bodies smaller than this many bytes are sent uncompressed. Default 1024.
            public var minimumSize: Int = 1024
            /// zlib level 1 (fastest) … 9 (smallest). Default 5.
            public var level: Int32 = 5
            /// Content types (prefix match, parameters ignored) that are compressed.
            /// Default: JSON, problem+json, `text/`, JavaScript, XML, SVG.
            public var compressibleTypes: [String] = [
                "application/json", "application/problem+json", "text/", "application/javascript",
                "application/xml", "image/svg+xml",
            ]

            public init() {}

            func isCompressible(contentType: String?) -> Bool {
                guard let contentType else { return false }
                return compressibleTypes.contains { contentType.utf8.starts(with: $0.utf8) }
            }
        }

        static var onlineCores: Int {
            Platform.availableCPUs
        }
    }
}
