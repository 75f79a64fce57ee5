#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A complete HTTP request: head plus the whole (de-chunked) body.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request-target exactly as received (origin-form `/a/b?c`, absolute-form `http://h/a`, `*`, or authority).
    public var target: String
    /// The path of the target, **not** percent-decoded (so `%2F` stays distinguishable from `/`).
    /// For absolute-form targets this is the path part (`/` when empty); `*` for asterisk-form.
    /// Router parameters (``pathParameters``) are percent-decoded.
    public var path: String
    /// The raw query string after `?` (not decoded), `nil` when the target has no `?`.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPFields
    /// The request body; chunked bodies are already de-chunked.
    public var body: [UInt8]
    /// Trailer fields of a chunked body (empty otherwise).
    public var trailers: HTTPFields
    /// Parameters captured by ``Router`` patterns (`{name}`), percent-decoded.
    public var pathParameters: PathParameters
    /// The peer address (`"127.0.0.1:53211"`, `"[::1]:53211"`) when served by ``HTTPServer``.
    public var remoteAddress: String?

    public init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http11, headers: HTTPFields = [:],
        body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        let components = HTTPRequest.splitTarget(target)
        self.path = components.path
        self.query = components.query
        self.version = version
        self.headers = headers
        self.body = body
        self.trailers = HTTPFields()
        self.pathParameters = PathParameters()
        self.remoteAddress = nil
    }

    /// Query items in order, percent-decoded; `+` is decoded as a space (form convention).
    /// An item without `=` has an empty value.
    public var queryItems: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        forEachQueryItem { name, value in
            items.append((PercentDecoding.decodeQueryComponent(name), PercentDecoding.decodeQueryComponent(value)))
            return false
        }
        return items
    }

    /// The first query item named `name`, decoded. Scans the raw bytes and decodes only the value it returns.
    public func queryItem(_ name: String) -> String? {
        var found: String?
        var name = name
        name.withUTF8 { wanted in
            forEachQueryItem { key, value in
                let matches =
                    PercentDecoding.needsDecoding(key)
                    ? PercentDecoding.decodeQueryComponent(key).utf8.elementsEqual(wanted)
                    : key.count == wanted.count
                        && (key.isEmpty || memcmp(key.baseAddress!, wanted.baseAddress!, key.count) == 0)
                if matches { found = PercentDecoding.decodeQueryComponent(value) }
                return matches
            }
        }
        return found
    }

    /// Calls `body` with the raw name and value bytes of each `&`-separated item (empty items skipped) until it
    /// returns true.
    private func forEachQueryItem(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        guard var query, !query.isEmpty else { return }
        query.withUTF8 { bytes in
            var start = 0
            while start < bytes.count {
                let end = PercentDecoding.index(of: UInt8(ascii: "&"), in: bytes, from: start, to: bytes.count)
                if end > start {
                    let equals = PercentDecoding.index(of: UInt8(ascii: "="), in: bytes, from: start, to: end)
                    let name = UnsafeBufferPointer(rebasing: bytes[start..<equals])
                    let value = UnsafeBufferPointer(rebasing: bytes[min(equals + 1, end)..<end])
                    if body(name, value) { return }
                }
                start = end + 1
            }
        }
    }

    /// Set by the parser so the server does not re-scan `Connection`.
    var keepAliveHint: Bool?

    init(
        method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion, headers: HTTPFields,
        keepAliveHint: Bool
    ) {
        self.keepAliveHint = keepAliveHint
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = []
        self.trailers = HTTPFields()
        self.pathParameters = PathParameters()
        self.remoteAddress = nil
    }

    /// Whether the client asked to keep the connection open (HTTP/1.1 default, HTTP/1.0 `keep-alive`).
    public var wantsKeepAlive: Bool {
        if let keepAliveHint { return keepAliveHint }
        if version.major == 1 && version.minor >= 1 {
            return !headers.containsToken("close", in: "Connection")
        }
        return headers.containsToken("keep-alive", in: "Connection")
            && !headers.containsToken("close", in: "Connection")
    }

    static func splitTarget(_ target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if !rest.hasPrefix("/") && rest != "*" {
            // absolute-form: skip scheme://authority
            if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
                rest = rest[rest.index(colon, offsetBy: 3)...]
                if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                    rest = rest[slash...]
                } else {
                    return ("/", nil)
                }
            }
        }
        if let question = rest.firstIndex(of: "?") {
            let path = rest[..<question]
            return (path.isEmpty ? "/" : String(path), String(rest[rest.index(after: question)...]))
        }
        return (String(rest), nil)
    }
}

/// Percent-decoding (RFC 3986 §2.1) for paths and queries.
public enum PercentDecoding {
    /// Decodes `%HH` escapes; returns `nil` for a malformed escape or invalid UTF-8.
    public static func decode(_ string: some StringProtocol, plusAsSpace: Bool = false) -> String? {
        let utf8 = string.utf8
        if !utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(string)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else if plusAsSpace && byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A query name or value: `+` is a space; a malformed escape or invalid UTF-8 leaves the text as sent.
    static func decodeQueryComponent(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if !needsDecoding(bytes) { return String(decoding: bytes, as: UTF8.self) }
        let text = String(decoding: bytes, as: UTF8.self)
        return decode(text, plusAsSpace: true) ?? text
    }

    /// Whether a query component holds a `%` escape or a `+` (memchr: vectorised, unlike a byte loop).
    static func needsDecoding(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
        return memchr(base, Int32(UInt8(ascii: "%")), bytes.count) != nil
            || memchr(base, Int32(UInt8(ascii: "+")), bytes.count) != nil
    }

    /// The index of the first `byte` in `bytes[start..<end]`, or `end`.
    static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        guard start < end, let base = bytes.baseAddress,
            let found = memchr(base + start, Int32(byte), end - start)
        else { return end }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
