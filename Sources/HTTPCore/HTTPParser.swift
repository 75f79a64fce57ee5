#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An incremental, pure HTTP/1.1 request parser: bytes in, ``Event``s out. No I/O, no clocks.
///
/// Feed bytes with ``append(_:)-(UnsafeRawBufferPointer)`` and call ``next()`` until it returns `nil` (more
/// bytes needed). A thrown ``HTTPParseError`` is final: answer it and close the connection. The parser enforces
/// RFC 9112 strictly (see `docs/http.md`) and the size limits of ``HTTPServer/Configuration/Limits``.
public struct HTTPParser: Sendable {
    /// What the parser produced.
    public enum Event: Sendable {
        /// The head of a request with `Expect: 100-continue` and a body was received and none of the body has
        /// arrived yet: send `100 Continue` now. The request itself follows as ``request(_:)``.
        case expectContinue
        /// A complete request, body included.
        case request(HTTPRequest)
    }

    public typealias Limits = HTTPServer.Configuration.Limits

    private enum State: Equatable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed
    }

    public let limits: Limits
    private var buffer: [UInt8] = []
    /// Index of the first unconsumed byte in `buffer`.
    private var start = 0
    private var state = State.head
    /// Offset (relative to `start`) where scanning for LF resumes.
    private var scan = 0
    /// Offset (relative to `start`) of the line being scanned.
    private var lineStart = 0
    /// Complete lines of the current section, relative to `start`, CRLF excluded.
    private var lines: [Range<Int>] = []
    private var emptyLinesSkipped = 0
    private var pending: HTTPRequest?
    private var bodyCount = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
        lines.reserveCapacity(16)
    }

    /// Bytes received but not yet consumed.
    public var bufferedByteCount: Int { buffer.count - start }

    /// `true` between requests when no byte of the next request has arrived.
    public var isAtRequestBoundary: Bool { state == .head && buffer.count == start && scan == 0 }

    /// `true` after a request head was parsed, until its body is complete.
    public var isReadingBody: Bool {
        switch state {
        case .head, .failed: false
        default: true
        }
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    private mutating func compact() {
        if start == buffer.count {
            if start > 0 {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
        } else if start >= 16 * 1024 && start * 2 >= buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    /// The next event, or `nil` when more bytes are needed. After a throw the parser stays failed.
    public mutating func next() throws(HTTPParseError) -> Event? {
        switch try advance() {
        case nil: nil
        case .expectContinue: .expectContinue
        case .request: .request(takeRequest())
        }
    }

    /// What ``advance()`` found: ``next()``'s events without the request, which stays in the parser until
    /// ``takeRequest()`` moves it out (the server's path: an `Event` payload would be copied out of the enum).
    enum Progress {
        case expectContinue
        case request
    }

    /// Like ``next()``; after `.request`, call ``takeRequest()`` before advancing again.
    mutating func advance() throws(HTTPParseError) -> Progress? {
        do {
            return try step()
        } catch {
            state = .failed
            throw error
        }
    }

    /// The request ``advance()`` completed, moved out of the parser.
    mutating func takeRequest() -> HTTPRequest {
        pending.take()!
    }

    private mutating func step() throws(HTTPParseError) -> Progress? {
        while true {
            switch state {
            case .failed:
                return nil

            case .head:
                guard let sectionLength = try scanSection(isHead: true) else { return nil }
                let (framing, expectContinue) = try buffer.withUnsafeBufferPointer {
                    (pointer) throws(HTTPParseError) -> ParsedHead in
                    try HeadParser.parseHead(pointer, base: start, lines: lines, limits: limits, into: &pending)
                }
                start += sectionLength
                lines.removeAll(keepingCapacity: true)
                emptyLinesSkipped = 0
                switch framing {
                case .none:
                    return .request
                case .length(let length):
                    pending!.body.reserveCapacity(length)
                    state = .fixedBody(remaining: length)
                case .chunked:
                    bodyCount = 0
                    state = .chunkSize
                }
                if expectContinue && start == buffer.count {
                    return .expectContinue
                }

            case .fixedBody(let remaining):
                let available = buffer.count - start
                if available == 0 { return nil }
                let take = min(available, remaining)
                pending!.body.append(contentsOf: buffer[start..<start + take])
                start += take
                if take == remaining {
                    state = .head
                    return .request
                }
                state = .fixedBody(remaining: remaining - take)
                return nil

            case .chunkSize:
                guard let size = try parseChunkSizeLine() else { return nil }
                if size == 0 {
                    state = .trailers
                } else {
                    state = .chunkData(remaining: size)
                }

            case .chunkData(let remaining):
                let available = buffer.count - start
                if available == 0 { return nil }
                let take = min(available, remaining)
                pending!.body.append(contentsOf: buffer[start..<start + take])
                start += take
                state = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
                if take < remaining { return nil }

            case .chunkDataEnd:
                if buffer.count - start < 2 {
                    if buffer.count - start == 1 && buffer[start] != Byte.cr { throw .invalidChunk }
                    return nil
                }
                guard buffer[start] == Byte.cr, buffer[start + 1] == Byte.lf else { throw .invalidChunk }
                start += 2
                state = .chunkSize

            case .trailers:
                guard let sectionLength = try scanSection(isHead: false) else { return nil }
                let trailers = try buffer.withUnsafeBufferPointer { (pointer) throws(HTTPParseError) -> HTTPFields in
                    try HeadParser.parseTrailers(pointer, base: start, lines: lines)
                }
                start += sectionLength
                lines.removeAll(keepingCapacity: true)
                pending!.trailers = trailers
                state = .head
                return .request
            }
        }
    }

    /// Scans field lines; returns the section length (relative, final CRLF included) once complete.
    private mutating func scanSection(isHead: Bool) throws(HTTPParseError) -> Int? {
        let end = buffer.count
        var index = start + scan
        while index < end {
            let searchFrom = index
            let found = buffer.withUnsafeBufferPointer { pointer -> Int in
                guard let raw = memchr(pointer.baseAddress! + searchFrom, Int32(Byte.lf), end - searchFrom) else {
                    return -1
                }
                return UnsafeRawPointer(raw) - UnsafeRawPointer(pointer.baseAddress!)
            }
            guard found >= 0 else {
                index = end
                break
            }
            let lineAbsoluteStart = start + lineStart
            guard found > lineAbsoluteStart, buffer[found - 1] == Byte.cr else { throw .bareLF }
            let length = found - 1 - lineAbsoluteStart
            if isHead && lines.isEmpty {
                if length == 0 {
                    // Empty lines before the request line are ignored (RFC 9112 §2.2), a few of them.
                    emptyLinesSkipped += 1
                    if emptyLinesSkipped > 8 { throw .tooManyEmptyLines }
                    start = found + 1
                    scan = 0
                    lineStart = 0
                    index = start
                    continue
                }
                if length > limits.maxRequestLineLength { throw .requestLineTooLong }
            } else {
                if length == 0 {
                    scan = 0
                    lineStart = 0
                    return found + 1 - start
                }
                if length > limits.maxHeaderFieldLength { throw .headerFieldTooLarge }
                if lines.count - (isHead ? 1 : 0) + 1 > limits.maxHeaderCount { throw .tooManyHeaders }
            }
            lines.append(lineStart..<lineStart + length)
            lineStart = found + 1 - start
            index = found + 1
            if sectionSize(isHead: isHead, upTo: lineStart) > limits.maxHeaderSectionSize {
                throw .headerSectionTooLarge
            }
        }
        scan = index - start
        let partial = scan - lineStart
        if isHead && lines.isEmpty {
            if partial > limits.maxRequestLineLength + 1 { throw .requestLineTooLong }
        } else {
            if partial > limits.maxHeaderFieldLength + 1 { throw .headerFieldTooLarge }
            if sectionSize(isHead: isHead, upTo: scan) > limits.maxHeaderSectionSize { throw .headerSectionTooLarge }
        }
        return nil
    }

    private func sectionSize(isHead: Bool, upTo offset: Int) -> Int {
        guard isHead else { return offset }
        guard let requestLine = lines.first else { return 0 }
        return offset - (requestLine.upperBound + 2)
    }

    /// Parses a complete chunk-size line; `nil` when incomplete.
    private mutating func parseChunkSizeLine() throws(HTTPParseError) -> Int? {
        let available = buffer.count - start
        let window = min(available, limits.maxChunkLineLength + 2)
        let from = start
        let found = buffer.withUnsafeBufferPointer { pointer -> Int in
            guard window > 0, let raw = memchr(pointer.baseAddress! + from, Int32(Byte.lf), window) else { return -1 }
            return UnsafeRawPointer(raw) - UnsafeRawPointer(pointer.baseAddress!)
        }
        guard found >= 0 else {
            if available > limits.maxChunkLineLength + 1 { throw .chunkLineTooLong }
            return nil
        }
        guard found > start, buffer[found - 1] == Byte.cr else { throw .bareLF }
        let lineEnd = found - 1
        var index = start
        var size = 0
        var digits = 0
        while index < lineEnd, let value = PercentDecoding.hexValue(buffer[index]) {
            if digits == 15 { throw .chunkSizeOverflow }
            size = size << 4 | Int(value)
            digits += 1
            index += 1
        }
        if digits == 0 { throw .invalidChunkSize }
        if index < lineEnd {
            let whitespace = buffer[index] == Byte.space || buffer[index] == Byte.tab
            guard whitespace || buffer[index] == Byte.semicolon else {
                throw buffer[index] == Byte.cr ? .bareCR : .invalidChunkSize
            }
            try buffer.withUnsafeBufferPointer { (pointer) throws(HTTPParseError) in
                try ChunkExtensions.validate(pointer, from: index, to: lineEnd)
            }
        }
        if size > limits.maxBodySize - bodyCount { throw .bodyTooLarge }
        bodyCount += size
        start = found + 1
        return size
    }
}

enum Byte {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let comma: UInt8 = 0x2C
    static let slash: UInt8 = 0x2F
    static let question: UInt8 = 0x3F
    static let percent: UInt8 = 0x25
    static let hash: UInt8 = 0x23
    static let star: UInt8 = 0x2A
    static let equals: UInt8 = 0x3D
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let openBracket: UInt8 = 0x5B
    static let closeBracket: UInt8 = 0x5D

    /// RFC 9110 `tchar`.
    @inline(__always)
    static func isTChar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }
}
