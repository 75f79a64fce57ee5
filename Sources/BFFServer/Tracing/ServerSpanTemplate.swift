import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a server span writes after its ids, times and `url.path` — its name and kind, its other attributes
/// (``HTTPServerSpanFields/visitRest(method:version:host:userAgent:peer:status:route:_:)``), its status — kept per
/// lane with the values it was written from. The next span on the lane with the same values copies the bytes
/// instead of writing a dozen fields: a replica answers the same routes, for the same `Host`, user agents and load
/// balancer, all day. Compared by value (the peer by its address: its port changes with every connection).
struct ServerSpanTemplate {
    let method: HTTPMethod
    let version: HTTPVersion
    let status: Int
    let route: ServerRoute?
    let host: String?
    let userAgent: String?
    /// The peer's address, without its port (``Authority/split(_:)``); `nil` without a peer.
    let peerAddress: [UInt8]?
    /// Fields 5 (name), 6 (kind), 9 (the attributes but `url.path`) and 15 (status) of a `Span` message.
    let bytes: [UInt8]

    /// Whether a span with these values writes ``bytes``.
    func matches(
        method: HTTPMethod, version: HTTPVersion, status: Int, route: ServerRoute?, host: String?, userAgent: String?,
        peerAddress: UnsafeBufferPointer<UInt8>?
    ) -> Bool {
        guard status == self.status, route === self.route, version == self.version, method == self.method,
            host == self.host, userAgent == self.userAgent
        else { return false }
        switch (peerAddress, self.peerAddress) {
        case (nil, nil): return true
        case (let new?, let old?):
            return old.withUnsafeBufferPointer { old in
                old.count == new.count && (old.isEmpty || memcmp(old.baseAddress!, new.baseAddress!, old.count) == 0)
            }
        default: return false
        }
    }
}
