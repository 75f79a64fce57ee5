import HTTPCore
import PageModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which `Host` values the mock backend's own pages — `/__admin`, `/__preview` and the `/` index — answer: the
/// defence against DNS rebinding (docs/mock.md § Who can reach the mock). A page at `http://evil.example:8080`
/// whose name the attacker re-points at 127.0.0.1 is same-origin with this server as far as the browser knows,
/// but its requests still say `Host: evil.example:8080`. Pure.
///
/// Allowed: IP literals (`127.0.0.1`, `192.168.1.20`, `10.0.2.2`, `[::1]`) — a browser sends one only when it
/// connected to that address, so no name can be rebound behind it —, `localhost` and `*.localhost` (browsers
/// resolve those to loopback themselves, RFC 6761), and the configured names (`mock.allowedHosts`: exact names,
/// `*.example.com` for any subdomain, `*` for any host). The port and one trailing dot are ignored, case too.
struct HostPolicy: Sendable, Hashable {
    /// `mock.allowedHosts`, lowercased, trailing dot removed.
    let names: [String]

    init(allowedHosts: [String]) {
        names = allowedHosts.map { Self.normalized($0) }
    }

    static let notAllowed = ProblemDetails(
        .hostNotAllowed,
        detail:
            "The admin API, the preview and the index answer loopback names, IP addresses and the names in "
            + "mock.allowedHosts only (a defence against DNS rebinding, docs/mock.md).")

    /// Throws ``notAllowed`` unless `request` names an allowed host.
    func check(_ request: HTTPRequest) throws(ProblemDetails) {
        guard allows(authority: Self.authority(target: request.target, host: request.headers["Host"])) else {
            throw Self.notAllowed
        }
    }

    /// The authority a request names: an absolute-form target's (RFC 9112 § 3.2.2: it overrides `Host`), else
    /// the `Host` field; `nil` when there is neither (HTTP/1.0 without `Host`).
    static func authority(target: String, host: String?) -> String? {
        let lowered = target.prefix(8).lowercased()
        for scheme in ["http://", "https://"] where lowered.hasPrefix(scheme) {
            let rest = target.dropFirst(scheme.count)
            return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        }
        return host
    }

    /// Whether `authority` (`host[:port]`) is allowed. A request without one (no browser sends none) is allowed;
    /// an empty or malformed one is not.
    func allows(authority: String?) -> Bool {
        guard let authority else { return true }
        guard let host = Self.host(of: authority) else { return false }
        if Self.isIPLiteral(host) { return true }
        let name = Self.normalized(host)
        guard !name.isEmpty else { return false }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        return names.contains { Self.matches(name, pattern: $0) }
    }

    /// The host part of `host[:port]` or `[v6]:port` (brackets kept); `nil` when malformed or the port is not
    /// digits.
    static func host(of authority: String) -> String? {
        let host: Substring
        let port: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            port = authority[authority.index(after: close)...]
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[colon...]
        } else {
            host = authority[...]
            port = ""
        }
        if !port.isEmpty {
            guard port.first == ":", port.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        return host.isEmpty ? nil : String(host)
    }

    /// Whether `host` is a dotted-quad IPv4 address or a bracketed IPv6 address.
    static func isIPLiteral(_ host: String) -> Bool {
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return false }
            var address = in6_addr()
            return inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1
        }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }

    /// `*` matches any name, `*.example.com` the subdomains of example.com, anything else only itself.
    static func matches(_ name: String, pattern: String) -> Bool {
        if pattern == "*" { return true }
        if pattern.hasPrefix("*.") { return name.hasSuffix(pattern.dropFirst()) }
        return name == pattern
    }

    static func normalized(_ name: String) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
    }

    /// Whether `entry` is a valid `mock.allowedHosts` entry: `*`, or a name of letters, digits, `-` and `.`,
    /// optionally starting with `*.`.
    static func isValidEntry(_ entry: String) -> Bool {
        if entry == "*" { return true }
        let name = entry.hasPrefix("*.") ? entry.dropFirst(2) : entry[...]
        return !name.isEmpty && name.utf8.count <= 253 && !name.hasPrefix(".") && !name.contains("..")
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }
}
