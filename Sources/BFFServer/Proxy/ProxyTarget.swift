import Foundation
import HTTPCore
import PageModel

/// What the proxy may forward, decided from the request alone (no I/O): the contract route a path names, whether
/// the configured patterns let it through, and the header fields that travel each way. Kept pure so every rule of
/// "no open proxy" is tested without sockets (ProxyTargetTests).
enum ProxyTarget: Sendable, Hashable {
    /// `GET /v1/pages/{pageID}`.
    case page(String)
    /// `GET|POST /v1/pages/{pageID}/next`.
    case nextPage(String)
    /// `POST /v1/actions/{name}`.
    case action(String)

    /// The contract route `path` names, `nil` for any other path (the index, operations, admin, preview: always
    /// local). The id is the raw segment; a segment that is not a valid page id or action name is never forwarded.
    init?(path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 4, segments[0].isEmpty, segments[1] == "v1" else { return nil }
        let id = String(segments[3])
        switch (segments[2], segments.count) {
        case ("pages", 4) where PageID.isValid(id): self = .page(id)
        case ("pages", 5) where segments[4] == "next" && PageID.isValid(id): self = .nextPage(id)
        case ("actions", 4) where ActionName.isValid(id): self = .action(id)
        default: return nil
        }
    }

    /// The route name the access log, metrics and the journal use for a forwarded request.
    var route: String {
        switch self {
        case .page: "proxy.page"
        case .nextPage: "proxy.nextPage"
        case .action: "proxy.action"
        }
    }

    /// The page a page or next-page request is for (`nil` for an action).
    var pageID: String? {
        switch self {
        case .page(let id), .nextPage(let id): id
        case .action: nil
        }
    }

    /// Whether `method` is one this route answers (others are left to the local router's 405).
    func allows(_ method: HTTPMethod) -> Bool {
        switch self {
        case .page: method == .get || method == .head
        case .nextPage: method == .get || method == .head || method == .post
        case .action: method == .post
        }
    }

    // MARK: Configuration

    /// Why `url` cannot be the proxy's upstream, `nil` when it can: an absolute `http`/`https` URL with a host and
    /// no query, fragment or user information (the request target is appended to it as it is).
    static func problem(baseURL url: String) -> String? {
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            return "\"\(url)\" is not an http:// or https:// URL"
        }
        let rest = url.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" }
        guard !authority.isEmpty else { return "\"\(url)\" names no host" }
        if authority.contains("@") { return "\"\(url)\": user information is not accepted in the upstream URL" }
        if url.contains("?") || url.contains("#") { return "\"\(url)\": the upstream URL has no query or fragment" }
        if url.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            return "\"\(url)\": the upstream URL is visible ASCII without spaces"
        }
        return nil
    }

    /// Whether `pattern` is a route pattern `[METHOD ]/path*` (the syntax of `mock.faults`).
    static func isValidPattern(_ pattern: String) -> Bool {
        (try? FaultRule(pattern: pattern, spec: .none)) != nil
    }

    /// Whether a request with `method` and `path` may be forwarded under `include` and `exclude` (exclude first).
    static func admits(method: String, path: String, include: [FaultRule], exclude: [FaultRule]) -> Bool {
        if exclude.contains(where: { $0.matches(method: method, path: path) }) { return false }
        return include.contains { $0.matches(method: method, path: path) }
    }

    // MARK: Header fields

    /// Request fields never forwarded: hop-by-hop fields (RFC 9110 § 7.6.1), the ones libcurl writes for the
    /// upstream's own connection (`Host`, `Content-Length`, `Accept-Encoding`: it decodes what it asked for), the ones
    /// the proxy sets itself (`X-Request-ID`, trace context, `Via` — the request's own tokens are kept in front of
    /// the proxy's), and the mock backend's own controls.
    static let droppedRequestFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length", "expect", "accept-encoding", "x-request-id",
        "traceparent", "tracestate", "via", "x-flow-mock", "x-flow-scenario", "x-flow-admin",
    ]

    /// Answer fields never passed back: hop-by-hop fields, the framing HTTPCore writes itself (`Content-Length`,
    /// `Date`, `Server`), `X-Request-ID` (the proxy names the request itself), and `Content-Encoding` (libcurl has decoded the body; HTTPCore gzips it again for a client
    /// that asks).
    static let droppedResponseFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "te", "trailer", "transfer-encoding",
        "upgrade", "content-length", "content-encoding", "date", "server", "x-request-id",
    ]

    /// The request's fields to forward, in order: all but ``droppedRequestFields`` and the fields its `Connection`
    /// header names.
    static func forwardedFields(of headers: HTTPFields) -> [(name: String, value: String)] {
        let named = connectionOptions(headers)
        var fields: [(name: String, value: String)] = []
        for field in headers {
            let name = field.name.lowercased()
            guard !droppedRequestFields.contains(name), !named.contains(name) else { continue }
            fields.append((field.name, field.value))
        }
        return fields
    }

    /// The upstream answer's fields to pass back, in order.
    static func returnedFields(of fields: [(name: String, value: String)]) -> HTTPFields {
        var connection = HTTPFields()
        for field in fields where field.name.lowercased() == "connection" { connection.append(field.name, field.value) }
        let named = connectionOptions(connection)
        var returned = HTTPFields()
        for field in fields {
            let name = field.name.lowercased()
            guard !droppedResponseFields.contains(name), !named.contains(name) else { continue }
            returned.append(field.name, field.value)
        }
        return returned
    }

    /// The lowercased field names a `Connection` header lists (they are hop-by-hop too).
    private static func connectionOptions(_ headers: HTTPFields) -> Set<String> {
        var names = Set<String>()
        for field in headers where field.name.lowercased() == "connection" {
            for option in field.value.split(separator: ",") {
                names.insert(option.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        return names
    }

    /// Whether `headers` show the request already went through the proxy whose `Via` token is `token`.
    static func hasLooped(_ headers: HTTPFields, token: String) -> Bool {
        headers.values(for: "Via").contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == token }
        }
    }
}
