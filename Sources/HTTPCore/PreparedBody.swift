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

    /// The first `limit` identity bytes and the identity length: a reader that keeps a bounded part (the mock
    /// journal) copies no more than that.
    public func identityPrefix(_ limit: Int) -> (bytes: [UInt8], count: Int) {
        (Array(identity.pointer.prefix(limit)), identity.count)
    }
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
