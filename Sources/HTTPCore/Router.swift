#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
        case literal([UInt8])
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
            return .literal(Array(segment.utf8))
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
            var path = request.path
            let matched = try path.withUTF8 { path -> (Route, [String: String])? in
                for route in parameterRoutes {
                    guard let parameters = try Router.match(route.segments, path) else { continue }
                    if route.method == request.method || (request.method == .head && route.method == .get) {
                        return (route, parameters)
                    }
                    allowed.insert(route.method)
                }
                return nil
            }
            if let (route, parameters) = matched {
                var request = request
                request.pathParameters = parameters
                return try route.handler(request)
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

    /// The `/`-separated segments of a route pattern, split on its bytes like request paths are in ``match(_:_:)``.
    private static func split(_ path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// The path parameters when `path` (its bytes) has exactly the pattern's segments, else nil. The structure is
    /// checked first without decoding or allocating anything; only a matching path's parameters are decoded.
    private static func match(_ pattern: [Segment], _ path: UnsafeBufferPointer<UInt8>) throws -> [String: String]? {
        guard matches(pattern, path) else { return nil }
        var parameters: [String: String] = [:]
        var start = 0
        for segment in pattern {
            let end = segmentEnd(path, from: start)
            if case .parameter(let name) = segment {
                let component = UnsafeBufferPointer(rebasing: path[start..<end])
                guard let decoded = PercentDecoding.decode(String(decoding: component, as: UTF8.self)) else {
                    throw HTTPError(.badRequest, code: "invalid_path_encoding", detail: "Malformed percent-encoding")
                }
                parameters[name] = decoded
            }
            start = end + 1
        }
        return parameters
    }

    /// Whether `path` has the pattern's segments: equal literals, non-empty parameters, nothing left over.
    private static func matches(_ pattern: [Segment], _ path: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        for (index, segment) in pattern.enumerated() {
            guard start <= path.count else { return false }
            let end = segmentEnd(path, from: start)
            let component = UnsafeBufferPointer(rebasing: path[start..<end])
            switch segment {
            case .literal(let literal):
                guard literal.count == component.count,
                    literal.isEmpty
                        || literal.withUnsafeBytes({ memcmp($0.baseAddress!, component.baseAddress!, $0.count) }) == 0
                else { return false }
            case .parameter:
                if component.isEmpty { return false }
            }
            // The last segment must end the path; every other one ends at a "/".
            if index == pattern.count - 1 { return end == path.count }
            start = end + 1
        }
        return false
    }

    /// The end of the segment starting at `start`: the next "/" or the end of the path.
    private static func segmentEnd(_ path: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var end = start
        while end < path.count && path[end] != UInt8(ascii: "/") { end += 1 }
        return end
    }
}
