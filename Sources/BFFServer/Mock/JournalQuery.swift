import HTTPCore
import PageModel

/// A filter over the request journal, from the query of `GET /__admin/journal` and `/__admin/journal/count`
/// (docs/mock.md § Journal): every given parameter must hold.
///
///     method=POST                     path=/v1/actions/cart.*        (a glob on the path, without the query)
///     session=ui-test-1               status=200 | status=4xx
///     body.value=7                    body.payload.productID=p-1042  (a JSON body member, compared as text;
///                                                                     * in the value is a glob)
///     after=<sequence>                limit=<n> (list only: the newest n)
struct JournalQuery: Sendable {
    var method: String?
    var path: String?
    var session: String?
    /// An exact status, or a class (`4xx` → 4).
    var status: Int?
    var statusClass: Int?
    /// Dotted paths into the JSON body and the text their value must have (a glob).
    var bodyFields: [(path: [String], value: String)] = []
    var after: UInt64 = 0
    var limit: Int = .max

    static let parameters = ["method", "path", "session", "status", "after", "limit", "body.<path>"]

    /// Parses the filter parameters of `request`.
    /// - Parameter allowsLimit: false for the count, which has no page to cut.
    /// - Throws: 400 `invalid_query` naming the parameter, for a malformed value or an unknown parameter (a typo
    ///   must not silently widen what a UI test counts).
    init(_ request: HTTPRequest, allowsLimit: Bool = true) throws(ProblemDetails) {
        for item in request.queryItems {
            let value = item.value
            switch item.name {
            case "method":
                guard HTTPMethod(value).isToken else { throw Self.invalid("method", "a method such as POST") }
                method = value.uppercased()
            case "path":
                // Bytes, as the glob matches: "/🏻" is one Character, not "/" and a modifier.
                guard value.utf8.first == UInt8(ascii: "/") else {
                    throw Self.invalid("path", "a path glob starting with /")
                }
                path = value
            case "session":
                guard SessionID.isValid(value) else {
                    throw Self.invalid("session", "a session id \(SessionID.pattern)")
                }
                session = value
            case "status":
                if let code = Int(value), (100...599).contains(code) {
                    status = code
                } else if value.count == 3, value.lowercased().hasSuffix("xx"), let digit = Int(value.prefix(1)),
                    (1...5).contains(digit)
                {
                    statusClass = digit
                } else {
                    throw Self.invalid("status", "a status code (200) or class (4xx)")
                }
            case "after":
                after = UInt64(try Self.count(request, "after", value))
            case "limit" where allowsLimit:
                limit = try Self.count(request, "limit", value)
            default:
                if let field = item.name.dropping(prefix: "body."), !field.isEmpty {
                    let path = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                    guard !path.contains(where: \.isEmpty) else {
                        throw Self.invalid(item.name, "a dotted path into the JSON body, e.g. body.payload.productID")
                    }
                    bodyFields.append((path, value))
                } else {
                    let known = allowsLimit ? Self.parameters : Self.parameters.filter { $0 != "limit" }
                    let hint = NearMiss.closest(to: item.name, among: known).map { " (did you mean \($0)?)" } ?? ""
                    throw ProblemDetails(
                        .invalidQuery,
                        detail:
                            "Unknown journal filter \"\(item.name)\"\(hint); filters: \(known.joined(separator: ", "))."
                    )
                }
            }
        }
    }

    /// A count (`after`, `limit`): given once, as 1–18 ASCII digits. `-1`, `1.5`, `+1`, an empty or a repeated
    /// value is 400 `invalid_query` rather than silently read some other way.
    static func count(_ request: HTTPRequest, _ name: String, _ value: String) throws(ProblemDetails) -> Int {
        guard request.queryItems.count(where: { $0.name == name }) == 1, (1...18).contains(value.utf8.count),
            value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let count = Int(value)
        else { throw invalid(name, "a whole number 0–999999999999999999, given at most once") }
        return count
    }

    static func invalid(_ name: String, _ expected: String) -> ProblemDetails {
        ProblemDetails(
            .invalidQuery, detail: "The journal filter \(name) takes \(expected).")
    }

    /// True when `entry` passes every filter (`session` and `after` are applied by the journal itself too).
    func matches(_ entry: JournalEntry) -> Bool {
        if let method, entry.method != method { return false }
        if let session, entry.session != session { return false }
        if entry.sequence <= after { return false }
        if let status, entry.status != status { return false }
        if let statusClass, entry.status / 100 != statusClass { return false }
        if let path {
            let entryPath = entry.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard FaultRule.glob(Array(path.utf8)[...], Array(entryPath.utf8)[...]) else { return false }
        }
        guard !bodyFields.isEmpty else { return true }
        guard !entry.bodyTruncated, let body = try? JSONParser().parse(entry.body) else { return false }
        return bodyFields.allSatisfy { field in
            var current: JSONValue? = body
            for segment in field.path {
                switch current {
                case .object(let object): current = object[segment]
                case .array(let array): current = Int(segment).flatMap { array.indices.contains($0) ? array[$0] : nil }
                default: current = nil
                }
            }
            guard let current else { return false }
            return FaultRule.glob(Array(field.value.utf8)[...], Array(current.templateText.utf8)[...])
        }
    }
}
