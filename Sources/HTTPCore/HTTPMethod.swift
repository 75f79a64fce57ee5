/// An HTTP request method (a case-sensitive token, RFC 9110 §9).
public struct HTTPMethod: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// True when the method is a token (one or more RFC 9110 `tchar`), as the parser requires of a request line.
    public var isToken: Bool { !rawValue.isEmpty && rawValue.utf8.allSatisfy(Byte.isTChar) }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let delete = HTTPMethod("DELETE")
    public static let patch = HTTPMethod("PATCH")
    public static let options = HTTPMethod("OPTIONS")
    public static let connect = HTTPMethod("CONNECT")
    public static let trace = HTTPMethod("TRACE")
}

/// The protocol version of a request.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http10 = HTTPVersion(major: 1, minor: 0)
    public static let http11 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }
}
