import Synchronization

/// A representation prepared once and served many times: identity bytes, gzip bytes (compressed once, or
/// supplied precompressed), and an `ETag`, with the header lines for each variant pre-rendered.
///
/// Serving it costs no compression, no copy of the body (it is written with `writev` from stable memory) and
/// no header formatting beyond the status line and `Date`. The server picks the gzip variant when the request's
/// `Accept-Encoding` prefers gzip (see ``AcceptEncoding``) and answers a matching `If-None-Match` with 304.
public final class PreparedBody: Sendable {
    /// The gzip bytes and their pre-rendered heads.
    struct GzipVariant: Sendable {
        let storage: ByteStorage
        let head: [UInt8]
        let notModifiedHead: [UInt8]
    }

    /// A gzip variant made on the first request that asks for it.
    private enum LazyGzip {
        case pending(bytes: [UInt8], level: Int32)
        case made(GzipVariant?)
    }

    public let contentType: String
    /// Strong ETag of the identity variant, e.g. `"\"9f3a…-800\""`.
    public let etag: String
    /// Strong ETag of the gzip variant (the identity tag with `-gz` appended inside the quotes).
    public let gzipETag: String?

    let identity: ByteStorage
    /// `Content-Type`, `Content-Length`, `ETag` (+ `Vary`) lines of the identity variant, and for 304 answers.
    package let identityHead: [UInt8]
    package let identityNotModifiedHead: [UInt8]
    private let eagerGzip: GzipVariant?
    /// Whether the gzip variant is made on demand (`lazyGzip`); eager bodies never take its lock.
    private let isLazy: Bool
    private let lazyGzip: Mutex<LazyGzip>

    /// Prepares `bytes`.
    /// - Parameters:
    ///   - contentType: the `Content-Type` value.
    ///   - gzip: precompressed gzip bytes of `bytes` (e.g. from a `.gz` file); when `nil` and `compress` is true
    ///     the body is compressed here once with zlib at `level`.
    ///   - compress: whether to build a gzip variant at all. The gzip variant is dropped when it is not smaller.
    ///   - lazily: compress on the first request that prefers gzip instead of now (a representation made for one
    ///     request, which a client may never ask for compressed). The answers then always carry
    ///     `Vary: Accept-Encoding`; a gzip variant that is not smaller is not sent.
    public init(
        _ bytes: [UInt8], contentType: String, gzip: [UInt8]? = nil, compress: Bool = true, level: Int32 = 9,
        lazily: Bool = false
    ) {
        self.contentType = contentType
        let lazy = lazily && gzip == nil && compress && !bytes.isEmpty
        var gzipBytes = gzip
        if gzipBytes == nil && compress && !bytes.isEmpty && !lazy {
            let compressed = Gzip.compress(bytes, level: level)
            if compressed.count < bytes.count { gzipBytes = compressed }
        }
        let tag = PreparedBody.hash(bytes)
        etag = "\"\(tag)\""
        identity = ByteStorage(bytes)
        let varies = gzipBytes != nil || lazy
        gzipETag = varies ? "\"\(tag)-gz\"" : nil
        let vary = varies ? "Vary: Accept-Encoding\r\n" : ""
        identityHead = Array(
            "Content-Type: \(contentType)\r\nContent-Length: \(bytes.count)\r\nETag: \(etag)\r\n\(vary)".utf8)
        identityNotModifiedHead = Array("ETag: \(etag)\r\n\(vary)".utf8)
        eagerGzip = gzipBytes.map { Self.variant($0, contentType: contentType, etag: "\"\(tag)-gz\"") }
        isLazy = lazy
        lazyGzip = Mutex(lazy ? .pending(bytes: bytes, level: level) : .made(nil))
    }

    private static func variant(_ bytes: [UInt8], contentType: String, etag: String) -> GzipVariant {
        GzipVariant(
            storage: ByteStorage(bytes),
            head: Array(
                ("Content-Type: \(contentType)\r\nContent-Length: \(bytes.count)\r\nContent-Encoding: gzip\r\n"
                    + "ETag: \(etag)\r\nVary: Accept-Encoding\r\n").utf8),
            notModifiedHead: Array("ETag: \(etag)\r\nVary: Accept-Encoding\r\n".utf8))
    }

    /// The gzip variant, compressed now if it was prepared lazily and this is the first request for it; `nil`
    /// when there is none (or it would not be smaller).
    func gzipVariant() -> GzipVariant? {
        guard isLazy else { return eagerGzip }
        return lazyGzip.withLock { state in
            switch state {
            case .made(let variant):
                return variant
            case .pending(let bytes, let level):
                let compressed = Gzip.compress(bytes, level: level)
                let variant =
                    compressed.count < bytes.count
                    ? Self.variant(compressed, contentType: contentType, etag: gzipETag!) : nil
                state = .made(variant)
                return variant
            }
        }
    }

    /// The identity bytes.
    public var identityBytes: [UInt8] { identity.bytes }
    /// The gzip bytes, when a gzip variant exists (made now if it was prepared lazily).
    public var gzipBytes: [UInt8]? { gzipVariant()?.storage.bytes }

    /// Whether `ifNoneMatch` (a request's `If-None-Match` value) matches either variant (weak comparison).
    public func matches(ifNoneMatch: String) -> Bool {
        ETagMatcher.matches(ifNoneMatch, etag) || (gzipETag.map { ETagMatcher.matches(ifNoneMatch, $0) } ?? false)
    }

    /// FNV-1a 64 of the bytes and the length, hex.
    static func hash(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16) + "-" + String(bytes.count, radix: 16)
    }
}

/// `If-None-Match` evaluation (RFC 9110 §13.1.2, weak comparison).
public enum ETagMatcher {
    /// Whether the header value `ifNoneMatch` (`*` or a list of entity tags) matches `etag`.
    public static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        let wanted = opaque(Substring(etag))
        for element in ifNoneMatch.split(separator: ",") {
            let candidate = element.trimmingOWS()
            if candidate == "*" { return true }
            if opaque(candidate) == wanted { return true }
        }
        return false
    }

    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}

/// `Accept-Encoding` negotiation (RFC 9110 §12.5.3) between gzip and identity.
///
/// gzip is chosen when its q-value (`gzip`/`x-gzip`, else `*`, else 0) is above 0 and at least the q-value
/// the client gave identity explicitly (`identity`, else `*`; when neither is listed identity does not compete).
/// No `Accept-Encoding` field means identity. When nothing is acceptable the identity representation is sent
/// anyway (no 406).
public enum AcceptEncoding {
    public static func prefersGzip(_ value: String?) -> Bool {
        guard var value else { return false }
        return value.withUTF8 { prefersGzip(bytes: $0) }
    }

    static func prefersGzip(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Fast path for the common exact values.
        if bytes.count == 4 && asciiLower(bytes[0]) == 0x67 && asciiLower(bytes[1]) == 0x7A
            && asciiLower(bytes[2]) == 0x69 && asciiLower(bytes[3]) == 0x70
        {
            return true
        }
        var gzipQ: Int?
        var identityQ: Int?
        var starQ: Int?
        var index = 0
        let end = bytes.count
        while index < end {
            // element: OWS coding OWS [; OWS q=value OWS] ,
            while index < end && (bytes[index] == Byte.space || bytes[index] == Byte.tab || bytes[index] == Byte.comma)
            {
                index += 1
            }
            let nameStart = index
            while index < end && Byte.isTChar(bytes[index]) { index += 1 }
            let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<index])
            var quality = 1000
            var valid = !name.isEmpty
            // parameters
            while index < end && bytes[index] != Byte.comma {
                let byte = bytes[index]
                if byte == Byte.semicolon {
                    index += 1
                    while index < end && (bytes[index] == Byte.space || bytes[index] == Byte.tab) { index += 1 }
                    if index + 1 < end && asciiLower(bytes[index]) == 0x71 && bytes[index + 1] == 0x3D {
                        index += 2
                        let qStart = index
                        while index < end && bytes[index] != Byte.comma && bytes[index] != Byte.semicolon
                            && bytes[index] != Byte.space && bytes[index] != Byte.tab
                        {
                            index += 1
                        }
                        if let parsed = parseQuality(UnsafeBufferPointer(rebasing: bytes[qStart..<index])) {
                            quality = parsed
                        } else {
                            valid = false
                        }
                    }
                    continue
                }
                if byte != Byte.space && byte != Byte.tab { valid = valid && byte != Byte.semicolon }
                index += 1
            }
            guard valid else { continue }
            if equalsLower(name, "gzip") || equalsLower(name, "x-gzip") {
                gzipQ = max(gzipQ ?? 0, quality)
            } else if equalsLower(name, "identity") {
                identityQ = quality
            } else if name.count == 1 && name[0] == Byte.star {
                starQ = quality
            }
        }
        let gzip = gzipQ ?? starQ ?? 0
        let identity = identityQ ?? starQ ?? 0
        return gzip > 0 && gzip >= identity
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
    static func parseQuality(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = bytes.first, first == 0x30 || first == 0x31 else { return nil }
        var value = Int(first - 0x30) * 1000
        if bytes.count == 1 { return value }
        guard bytes[1] == 0x2E, bytes.count <= 5 else { return nil }
        var scale = 100
        for byte in bytes.dropFirst(2) {
            let digit = byte &- 0x30
            guard digit <= 9 else { return nil }
            value += Int(digit) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }

    private static func equalsLower(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let pointer = literal.utf8Start
        for index in 0..<bytes.count where asciiLower(bytes[index]) != pointer[index] { return false }
        return true
    }
}
