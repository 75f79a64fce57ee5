/// Routes requests by method and path pattern to handlers.
///
/// Patterns are `/`-separated segments; a segment `{name}` captures one non-empty path segment into
/// ``HTTPRequest/pathParameters`` (percent-decoded; a malformed escape is a 400). Matching is exact and
/// case-sensitive on the raw (undecoded) path; trailing slashes matter. Literal routes win over parameter
/// routes. `HEAD` falls back to the `GET` route (the server sends no body). No match → 404; a path that
/// matches with other methods only → 405 with `Allow`. Both answers are problem+json.
public struct Router: HTTPResponder {
    public typealias Handler = @Sendable (HTTPRequest) throws -> HTTPReply

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    private struct Route: Sendable {
        var method: HTTPMethod
        var segments: [Segment]
        var handler: Handler
    }

    private var literalRoutes: [String: [HTTPMethod: Handler]] = [:]
    private var parameterRoutes: [Route] = []

    public init() {}

    /// Adds a route. Later registrations of the same method and pattern replace earlier ones.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        let segments = Router.split(pattern).map { segment -> Segment in
            if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2 {
                return .parameter(String(segment.dropFirst().dropLast()))
            }
            return .literal(String(segment))
        }
        if segments.allSatisfy({ if case .literal = $0 { true } else { false } }) {
            literalRoutes[pattern, default: [:]][method] = handler
        } else {
            parameterRoutes.removeAll { $0.method == method && $0.segments == segments }
            parameterRoutes.append(Route(method: method, segments: segments, handler: handler))
        }
    }

    public mutating func get(_ pattern: String, _ handler: @escaping Handler) { add(.get, pattern, handler) }
    public mutating func post(_ pattern: String, _ handler: @escaping Handler) { add(.post, pattern, handler) }
    public mutating func put(_ pattern: String, _ handler: @escaping Handler) { add(.put, pattern, handler) }
    public mutating func delete(_ pattern: String, _ handler: @escaping Handler) { add(.delete, pattern, handler) }

    public func respond(to request: HTTPRequest) throws -> HTTPReply {
        var allowed: Set<HTTPMethod> = []
        if let byMethod = literalRoutes[request.path] {
            if let handler = byMethod[request.method] ?? (request.method == .head ? byMethod[.get] : nil) {
                return try handler(request)
            }
            allowed.formUnion(byMethod.keys)
        }
        if !parameterRoutes.isEmpty {
            let pathSegments = Router.split(request.path)
            for route in parameterRoutes where route.segments.count == pathSegments.count {
                guard let parameters = try Router.match(route.segments, pathSegments) else { continue }
                if route.method == request.method || (request.method == .head && route.method == .get) {
                    var request = request
                    request.pathParameters = parameters
                    return try route.handler(request)
                }
                allowed.insert(route.method)
            }
        }
        if allowed.isEmpty {
            throw HTTPError(.notFound, code: "route_not_found", detail: "No route for \(request.path)")
        }
        if allowed.contains(.get) { allowed.insert(.head) }
        let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        throw HTTPError(
            .methodNotAllowed, code: "method_not_allowed", detail: "Allowed: \(allow)", headers: ["Allow": allow])
    }

    /// The `/`-separated segments of `path`, split on its bytes: a parsed request path is ASCII (the parser rejects
    /// anything else), and splitting its Characters costs several thousand instructions per request. (A non-ASCII
    /// path built in code splits differently only where a `/` is part of a larger grapheme cluster, e.g. followed
    /// by a combining mark.)
    private static func split(_ path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    private static func match(_ pattern: [Segment], _ path: [Substring]) throws -> [String: String]? {
        var parameters: [String: String] = [:]
        for (segment, component) in zip(pattern, path) {
            switch segment {
            case .literal(let literal):
                if literal != component { return nil }
            case .parameter(let name):
                if component.isEmpty { return nil }
                guard let decoded = PercentDecoding.decode(component) else {
                    throw HTTPError(.badRequest, code: "invalid_path_encoding", detail: "Malformed percent-encoding")
                }
                parameters[name] = decoded
            }
        }
        return parameters
    }
}
