import Foundation
import HTTPCore
import PageModel

/// Who may use `/__admin` (docs/mock.md § Who can reach the mock). Pure.
///
/// - Peers: loopback always; others only with `Authorization: Bearer <mock.adminToken>` (the scheme in any
///   case, RFC 9110 § 11.1) when a token is configured.
/// - Browsers: a request whose `Origin` is another origin than the one it was sent to (unless `http.corsOrigins`
///   allows that origin), or `null`, or that says `Sec-Fetch-Site: cross-site` without an allowed `Origin`, is
///   refused.
/// - State-changing calls (every method but GET, HEAD and OPTIONS; `/__admin/echo` changes nothing) also carry
///   something a web page can send to another origin only after a CORS preflight: `X-Flow-Admin` (any value),
///   `Content-Type: application/json`, or the admin token.
enum AdminAccess {
    /// The header the preview's script, the scripts and the docs' `curl` lines send with state-changing calls.

    static let forbidden = ProblemDetails(
        .adminForbidden,
        detail:
            "The admin API answers loopback clients only, or clients sending Authorization: Bearer <mock.adminToken>.")

    static let crossSite = ProblemDetails(
        .crossSiteRefused,
        detail:
            "The admin API refuses requests from web pages of other origins (Origin, Sec-Fetch-Site); "
            + "http.corsOrigins lists the origins it accepts (docs/mock.md).")

    static let headerRequired = ProblemDetails(
        .adminHeaderRequired,
        detail:
            "A state-changing admin call needs X-Flow-Admin: 1, Content-Type: application/json or the admin token, "
            + "which a web page cannot send to another origin without a CORS preflight (docs/mock.md).")

    /// Throws the first rule `request` breaks.
    static func check(_ request: HTTPRequest, token: String?, cors: CORSPolicy) throws(ProblemDetails) {
        let headers = request.headers
        let hasToken = carriesToken(headers["Authorization"], token: token)
        guard isLoopback(request.remoteAddress) || hasToken else { throw forbidden }
        guard
            !isCrossSite(
                origin: headers["Origin"], fetchSite: headers["Sec-Fetch-Site"],
                host: HostPolicy.authority(target: request.target, host: headers["Host"]), cors: cors)
        else { throw crossSite }
        guard
            !changesState(request.method, path: request.path) || hasToken || headers[FlowHeader.admin] != nil
                || MediaType.isJSON(headers["Content-Type"])
        else { throw headerRequired }
    }

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
        isLoopback(remoteAddress) || carriesToken(authorization, token: token)
    }

    /// Whether `authorization` is `Bearer <token>`: the scheme in any case, one or more spaces after it
    /// (RFC 9110 § 11.1, RFC 6750 § 2.1), the token compared in constant time.
    static func carriesToken(_ authorization: String?, token: String?) -> Bool {
        guard let token, let authorization else { return false }
        let bytes = Array(authorization.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, bytes[scheme.count] == UInt8(ascii: " "),
            zip(bytes.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 })
        else { return false }
        let credentials = bytes.dropFirst(scheme.count).drop { $0 == UInt8(ascii: " ") }
        return constantTimeEquals(Array(credentials), Array(token.utf8))
    }

    /// Whether a browser sent the request from a page of another origin: `Origin` names another origin than
    /// `host` and `cors` does not allow it, or is `null` (sandboxed frames, `file:` pages); or there is no
    /// `Origin` and `Sec-Fetch-Site` is `cross-site`. Requests without either (curl, tests, devices) are not.
    static func isCrossSite(origin: String?, fetchSite: String?, host: String?, cors: CORSPolicy) -> Bool {
        if let origin {
            return !(isSameOrigin(origin, host: host) || (origin != "null" && cors.allows(origin)))
        }
        return fetchSite?.lowercased() == "cross-site"
    }

    /// Whether `origin` (`scheme://host[:port]`) has the authority `host` names, default ports filled in.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host else { return false }
        let lowered = origin.lowercased()
        let defaultPort: String
        let authority: Substring
        if lowered.hasPrefix("http://") {
            defaultPort = "80"
            authority = lowered.dropFirst(7)
        } else if lowered.hasPrefix("https://") {
            defaultPort = "443"
            authority = lowered.dropFirst(8)
        } else {
            return false
        }
        func withPort(_ authority: some StringProtocol) -> String {
            let text = String(authority)
            let portStart =
                text.hasPrefix("[") ? text.firstIndex(of: "]").map { text.index(after: $0) } : text.startIndex
            guard let portStart else { return text }
            return text[portStart...].contains(":") ? text : text + ":" + defaultPort
        }
        return !authority.isEmpty && withPort(authority) == withPort(host.lowercased())
    }

    /// Whether a call with `method` to `path` may change the mock's state (everything but GET, HEAD, OPTIONS and
    /// the echo route).
    static func changesState(_ method: HTTPMethod, path: String) -> Bool {
        ![HTTPMethod.get, .head, .options].contains(method) && path != "/__admin/echo"
    }

    /// Whether `contentType`'s media type is `application/json` (parameters ignored), which no simple request has.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
