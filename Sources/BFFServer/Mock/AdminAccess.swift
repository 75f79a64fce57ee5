/// Who may use `/__admin`: loopback peers always; other peers only with `Authorization: Bearer <mock.adminToken>`
/// when a token is configured. Pure.
enum AdminAccess {
    /// Whether `remoteAddress` (`"127.0.0.1:5000"`, `"[::1]:5000"`, `"[::ffff:127.0.0.1]:5000"`) is loopback.
    static func isLoopback(_ remoteAddress: String?) -> Bool {
        guard var host = remoteAddress else { return false }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            host = String(host[host.index(after: host.startIndex)..<close]).lowercased()
            if host == "::1" { return true }
            guard host.hasPrefix("::ffff:") else { return false }
            host.removeFirst(7)
        } else if let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])
        }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    static func allows(remoteAddress: String?, authorization: String?, token: String?) -> Bool {
        if isLoopback(remoteAddress) { return true }
        guard let token, let authorization, authorization.hasPrefix("Bearer ") else { return false }
        return constantTimeEquals(Array(authorization.utf8.dropFirst(7)), Array(token.utf8))
    }

    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
