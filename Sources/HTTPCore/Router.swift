#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Routes requests by method and path pattern to handlers, handing each handler the request and a `Context` the
/// caller made for it (Hummingbird's request context: what a server reads once per request and its handlers share).
/// ``Router`` is the router without a context, an ``HTTPResponder`` by itself.
///
/// Patterns are `/`-separated segments; a segment `{name}` captures one non-empty path segment into
/// ``HTTPRequest/pathParameters`` (percent-decoded; a malformed escape is a 400). Matching is exact and
/// case-sensitive on the raw (undecoded) path; trailing slashes matter. Literal routes win over parameter
/// routes. `HEAD` falls back to the `GET` route (the server sends no body). No match → 404; a path that
/// matches with other methods only → 405 with `Allow`. Both answers are problem+json.
public struct ContextRouter<Context: Sendable>: Sendable {
    public typealias Handler = @Sendable (HTTPRequest, Context) throws -> HTTPReply

    /// The patterns, matched without generics (compiled once in HTTPCore, whatever the context), naming handlers by
    /// index.
    @usableFromInline var table = RouteTable()
    @usableFromInline var handlers: [Handler] = []

    public init() {}

    /// Adds a route. Later registrations of the same method and pattern replace earlier ones.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        if let index = table.index(method, pattern) {
            handlers[index] = handler
        } else {
            handlers.append(handler)
            table.add(method, pattern, handler: handlers.count - 1)
        }
    }

    public mutating func get(_ pattern: String, _ handler: @escaping Handler) { add(.get, pattern, handler) }
    public mutating func post(_ pattern: String, _ handler: @escaping Handler) { add(.post, pattern, handler) }
    public mutating func put(_ pattern: String, _ handler: @escaping Handler) { add(.put, pattern, handler) }
    public mutating func delete(_ pattern: String, _ handler: @escaping Handler) { add(.delete, pattern, handler) }

    /// Routes `request` with its `context` (taken, not copied: the router sets its ``HTTPRequest/pathParameters``
    /// in place). Inlinable, so a server's router is specialized for its context (no generic dispatch per request).
    @inlinable
    public func respond(to request: consuming HTTPRequest, context: Context) throws -> HTTPReply {
        let (index, parameters) = try table.route(request.method, request.path)
        if let parameters { request.pathParameters = parameters }
        return try handlers[index](request, context)
    }
}

/// The routes of a ``ContextRouter``: method and pattern → handler index.
@usableFromInline
struct RouteTable: Sendable {
    private enum Segment: Sendable, Equatable {
        case literal([UInt8])
        case parameter(String)
    }

    private struct Route: Sendable {
        var method: HTTPMethod
        var segments: [Segment]
        var handler: Int
    }

    /// Routes without parameters, by their path's bytes: a short list compared by length and `memcmp` (no hashing).
    private var literalRoutes: [(path: [UInt8], byMethod: [HTTPMethod: Int])] = []
    private var parameterRoutes: [Route] = []

    /// The handler index of `method` and `pattern`, when registered.
    func index(_ method: HTTPMethod, _ pattern: String) -> Int? {
        let segments = Self.segments(pattern)
        if Self.isLiteral(segments) {
            let path = Array(pattern.utf8)
            return literalRoutes.first { $0.path == path }?.byMethod[method]
        }
        return parameterRoutes.first { $0.method == method && $0.segments == segments }?.handler
    }

    mutating func add(_ method: HTTPMethod, _ pattern: String, handler: Int) {
        let segments = Self.segments(pattern)
        if Self.isLiteral(segments) {
            let path = Array(pattern.utf8)
            if let index = literalRoutes.firstIndex(where: { $0.path == path }) {
                literalRoutes[index].byMethod[method] = handler
            } else {
                literalRoutes.append((path, [method: handler]))
            }
        } else {
            parameterRoutes.append(Route(method: method, segments: segments, handler: handler))
        }
    }

    private static func segments(_ pattern: String) -> [Segment] {
        split(pattern).map { segment -> Segment in
            if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2 {
                return .parameter(String(segment.dropFirst().dropLast()))
            }
            return .literal(Array(segment.utf8))
        }
    }

    private static func isLiteral(_ segments: [Segment]) -> Bool {
        segments.allSatisfy { if case .literal = $0 { true } else { false } }
    }

    /// The handler for `method` on `path` and, for a parameter route, its parameters.
    /// - Throws: 404 `route_not_found`, 405 `method_not_allowed` (with `Allow`), 400 `invalid_path_encoding`.
    @usableFromInline
    func route(_ method: HTTPMethod, _ path: String) throws -> (Int, PathParameters?) {
        // The match comes back as indices, not closures: a closure returned through the generic
        // `withContiguousStorageIfAvailable` would be re-abstracted (a thunk and an allocation per request).
        let found = try path.utf8.withContiguousStorageIfAvailable { try match(method, $0) }
        switch try found ?? Array(path.utf8).withUnsafeBufferPointer({ try match(method, $0) }) {
        case .literal(let index, let method):
            return (literalRoutes[index].byMethod[method]!, nil)
        case .parameter(let index, let parameters):
            return (parameterRoutes[index].handler, parameters)
        case .none(let allowed):
            if allowed.isEmpty {
                throw HTTPError(.notFound, code: "route_not_found", detail: "No route for \(path)")
            }
            var methods = allowed
            if methods.contains(.get) { methods.insert(.head) }
            let allow = methods.map(\.rawValue).sorted().joined(separator: ", ")
            throw HTTPError(
                .methodNotAllowed, code: "method_not_allowed", detail: "Allowed: \(allow)", headers: ["Allow": allow])
        }
    }

    private enum Match {
        /// `literalRoutes[index]`, for `method` (`GET` when a `HEAD` request fell back to it).
        case literal(Int, HTTPMethod)
        case parameter(Int, PathParameters)
        /// No route for this method; the methods the path has routes for.
        case none(Set<HTTPMethod>)
    }

    /// The route for `method` on `path`. Literal routes win; `HEAD` falls back to `GET`.
    private func match(_ method: HTTPMethod, _ path: UnsafeBufferPointer<UInt8>) throws -> Match {
        // Routes are visited by index, not iterated as values: a copy of each route would retain and release its
        // arrays, method and handler on every request.
        var allowed: Set<HTTPMethod> = []
        for index in literalRoutes.indices where Self.equal(literalRoutes[index].path, path) {
            if literalRoutes[index].byMethod[method] != nil { return .literal(index, method) }
            if method == .head && literalRoutes[index].byMethod[.get] != nil { return .literal(index, .get) }
            allowed.formUnion(literalRoutes[index].byMethod.keys)
        }
        for index in parameterRoutes.indices where Self.matches(parameterRoutes[index].segments, path) {
            let routeMethod = parameterRoutes[index].method
            if routeMethod == method || (method == .head && routeMethod == .get) {
                return .parameter(index, try Self.parameters(parameterRoutes[index].segments, path))
            }
            allowed.insert(routeMethod)
        }
        return .none(allowed)
    }

    private static func equal(_ literal: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        literal.count == bytes.count
            && (literal.isEmpty
                || literal.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) } == 0)
    }

    /// The `/`-separated segments of a route pattern, split on its bytes like request paths are in ``match(_:_:)``.
    private static func split(_ path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// The percent-decoded parameters of a `path` that ``matches(_:_:)`` the pattern (checked first, without
    /// decoding or allocating anything, so only the matching route's parameters are decoded).
    /// - Throws: 400 `invalid_path_encoding` for a malformed escape.
    private static func parameters(_ pattern: [Segment], _ path: UnsafeBufferPointer<UInt8>) throws -> PathParameters {
        var parameters = PathParameters()
        var start = 0
        for segment in pattern {
            let end = segmentEnd(path, from: start)
            if case .parameter(let name) = segment {
                let component = UnsafeBufferPointer(rebasing: path[start..<end])
                guard let decoded = PercentDecoding.decode(String(decoding: component, as: UTF8.self)) else {
                    throw HTTPError(.badRequest, code: "invalid_path_encoding", detail: "Malformed percent-encoding")
                }
                parameters.append(name, decoded)
            }
            start = end + 1
        }
        return parameters
    }

    /// Whether `path` has the pattern's segments: equal literals, non-empty parameters, nothing left over.
    private static func matches(_ pattern: [Segment], _ path: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        for index in pattern.indices {
            guard start <= path.count else { return false }
            let end = segmentEnd(path, from: start)
            let component = UnsafeBufferPointer(rebasing: path[start..<end])
            switch pattern[index] {
            case .literal(let literal):
                guard equal(literal, component) else { return false }
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

/// A router whose handlers take the request alone.
public typealias Router = ContextRouter<Void>

extension ContextRouter: HTTPResponder where Context == Void {
    /// Adds a route whose handler takes the request alone.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPReply
    ) {
        add(method, pattern) { request, _ in try handler(request) }
    }

    public mutating func get(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPReply) {
        add(.get, pattern, handler)
    }

    public mutating func post(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPReply) {
        add(.post, pattern, handler)
    }

    public mutating func put(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPReply) {
        add(.put, pattern, handler)
    }

    public mutating func delete(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPReply) {
        add(.delete, pattern, handler)
    }

    /// Routes `request`.
    public func respond(to request: consuming HTTPRequest) throws -> HTTPReply {
        try respond(to: request, context: ())
    }
}
