extension HTTPClient {
    /// Settings of an ``HTTPClient``: its event loop and the connection pool, DNS cache, TLS and limits libcurl
    /// applies to every transfer.
    public struct Configuration: Sendable, Hashable {
        /// Which loop drives libcurl's sockets and timers: an epoll thread (Linux) or Dispatch sources on a
        /// serial queue. Default: the platform's (`epoll` on Linux).
        public var eventLoop: HTTPServer.Configuration.EventLoopKind = .platformDefault
        /// Calls made on an ``HTTPServer``'s event loop run on that loop (a libcurl multi handle per server loop,
        /// served by the loop's poller), so a composed answer costs no thread hop. Off: every call goes through
        /// the client's own loop. Default on.
        public var useServerEventLoops = true
        /// Idle connections kept open for reuse, across all hosts, per loop (`CURLMOPT_MAXCONNECTS`). Default 256.
        public var maximumIdleConnections: Int = 256
        /// Connections open to one host at once; `0` for no limit (`CURLMOPT_MAX_HOST_CONNECTIONS`). Callers bound
        /// their own concurrency (``HTTPClientRequest/limit``). Default 0.
        public var maximumConnectionsPerHost: Int = 0
        /// An idle pooled connection older than this is not reused but closed (`CURLOPT_MAXAGE_CONN`). Keep it
        /// below the upstream's own keep-alive timeout. Default 25 s.
        public var idleConnectionTimeout: Duration = .seconds(25)
        /// How long a resolved host name is reused (`CURLOPT_DNS_CACHE_TIMEOUT`). Default 60 s.
        public var dnsCacheTimeout: Duration = .seconds(60)
        /// Time allowed to connect (TCP and TLS), within the transfer's own timeout. Default 1 s.
        public var connectTimeout: Duration = .seconds(1)
        /// The largest response body accepted, after content decoding; larger answers fail with
        /// ``HTTPClientError/Kind/responseTooLarge``. Default 8 MiB.
        public var maximumResponseBytes: Int = 8 << 20
        /// Asks for compressed answers (`Accept-Encoding` with every encoding libcurl decodes) and decodes them.
        /// Default on.
        public var decompress = true
        /// HTTP/2 where TLS negotiates it (ALPN), HTTP/1.1 otherwise. Default on.
        public var http2 = true
        /// A PEM file of CA certificates to trust instead of the system's (`CURLOPT_CAINFO`).
        public var caFile: String?
        /// A directory of hashed CA certificates to trust (`CURLOPT_CAPATH`).
        public var caDirectory: String?
        /// Verify the upstream's certificate and host name. Turn off only for a local test upstream. Default on.
        public var verifyPeer = true
        /// `User-Agent` of every request; `nil` sends none. Default `flow-bff`.
        public var userAgent: String? = "flow-bff"

        public init(eventLoop: HTTPServer.Configuration.EventLoopKind = .platformDefault) {
            self.eventLoop = eventLoop
        }
    }
}
