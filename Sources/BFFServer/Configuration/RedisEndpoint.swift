/// Where a Redis server listens, from a `redis://[[user]:password@]host[:port][/database]` URL.
public struct RedisEndpoint: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var user: String?
    public var password: String?
    public var database: Int

    /// `nil` for anything that is not such a URL (IPv6 hosts in brackets: `redis://[::1]:6379`).
    public init?(url: String) {
        guard url.hasPrefix("redis://") else { return nil }
        var rest = Substring(url.dropFirst("redis://".count))
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            if !path.isEmpty {
                guard let number = Int(path), number >= 0 else { return nil }
                database = number
            }
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let user = credentials[..<colon]
                self.user = user.isEmpty ? nil : String(user)
                password = String(credentials[credentials.index(after: colon)...])
            } else {
                password = String(credentials)
            }
        }
        var port = 6379
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            guard let number = Int(rest[rest.index(after: colon)...]) else { return nil }
            port = number
        } else {
            host = String(rest)
        }
        guard !host.isEmpty, (1...65_535).contains(port) else { return nil }
        self.port = port
        self.database = database
    }

    public init(host: String, port: Int, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.password = password
        self.database = database
    }
}
