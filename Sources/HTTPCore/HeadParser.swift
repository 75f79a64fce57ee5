/// How the body of a parsed request is framed.
enum BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

/// What a parsed head says about the body; the request itself is stored into the caller's optional (a request
/// returned inside a value would be built on the stack and copied out).
typealias ParsedHead = (framing: BodyFraming, expectContinue: Bool)

/// Stateless parsing of a complete head (request line + field lines) held in a buffer.
enum HeadParser {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    static func string(_ pointer: Bytes, _ range: Range<Int>) -> String {
        String(decoding: Bytes(rebasing: pointer[range]), as: UTF8.self)
    }

    static func parseHead(
        _ p: Bytes, base: Int, lines: [Range<Int>], limits: HTTPParser.Limits, into request: inout HTTPRequest?
    ) throws(HTTPParseError) -> ParsedHead {
        let requestLine = lines[0]
        let (method, target, version, path, query) = try parseRequestLine(
            p, requestLine.lowerBound + base, requestLine.upperBound + base)

        var headers = HTTPFields(reservingCapacity: lines.count - 1)
        var hostCount = 0
        var contentLength: Int?
        var transferEncodingSeen = false
        var chunkedCount = 0
        var lastCodingIsChunked = false
        var otherCoding = false
        var expectContinue = false
        var contentEncoding = false
        var connectionClose = false
        var connectionKeepAlive = false

        for line in lines.dropFirst() {
            let (nameRange, valueRange) = try parseFieldLine(p, line.lowerBound + base, line.upperBound + base)
            let name = string(p, nameRange)
            let value = string(p, valueRange)
            switch nameRange.count {
            case 4 where name.asciiCaseInsensitiveEquals("host"):
                hostCount += 1
                if hostCount > 1 { throw .duplicateHost }
                // `uri-host [ ":" port ]` naming a host (RFC 9112 §3.2, RFC 9110 §4.2.1), see HTTPParser+Host.swift.
                try validateHost(p, valueRange)
            case 14 where name.asciiCaseInsensitiveEquals("content-length"):
                let length = try parseContentLength(p, valueRange)
                if let contentLength, contentLength != length { throw .conflictingContentLength }
                contentLength = length
            case 17 where name.asciiCaseInsensitiveEquals("transfer-encoding"):
                transferEncodingSeen = true
                // Framing must be unambiguous: no empty list elements (`,chunked`, `chunked,`), see docs/http.md.
                for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let coding = element.trimmingOWS()
                    if coding.isEmpty { throw .invalidTransferEncoding }
                    if coding.asciiCaseInsensitiveEquals("chunked") {
                        chunkedCount += 1
                        lastCodingIsChunked = true
                    } else {
                        guard coding.utf8.allSatisfy({ Byte.isTChar($0) }) else {
                            // Parameters (`;`) or junk; parameters are not allowed on chunked either.
                            if coding.lowercased().hasPrefix("chunked") { throw .invalidTransferEncoding }
                            otherCoding = true
                            lastCodingIsChunked = false
                            continue
                        }
                        otherCoding = true
                        lastCodingIsChunked = false
                    }
                }
            case 6 where name.asciiCaseInsensitiveEquals("expect"):
                guard value.asciiCaseInsensitiveEquals("100-continue") else { throw .expectationFailed }
                expectContinue = true
            case 16 where name.asciiCaseInsensitiveEquals("content-encoding"):
                if !value.asciiCaseInsensitiveEquals("identity") { contentEncoding = true }
            case 10 where name.asciiCaseInsensitiveEquals("connection"):
                for element in value.split(separator: ",") {
                    let token = element.trimmingOWS()
                    if token.asciiCaseInsensitiveEquals("close") { connectionClose = true }
                    if token.asciiCaseInsensitiveEquals("keep-alive") { connectionKeepAlive = true }
                }
            default:
                break
            }
            headers.storage.append(HTTPFields.Field(name: name, value: value))
        }

        if version.minor >= 1 && hostCount == 0 { throw .missingHost }

        var framing = BodyFraming.none
        if transferEncodingSeen {
            if version.minor == 0 { throw .transferEncodingInHTTP10 }
            if contentLength != nil { throw .contentLengthWithTransferEncoding }
            if chunkedCount > 1 || (chunkedCount == 1 && !lastCodingIsChunked) { throw .chunkedNotLast }
            if otherCoding { throw .unsupportedTransferCoding }
            framing = .chunked
        } else if let contentLength {
            if contentLength > limits.maxBodySize { throw .bodyTooLarge }
            if contentLength > 0 { framing = .length(contentLength) }
        }
        if contentEncoding && framing != .none { throw .contentEncodingNotSupported }

        let keepAlive = version.minor >= 1 ? !connectionClose : connectionKeepAlive && !connectionClose
        request = HTTPRequest(
            method: method, target: target, path: path, query: query, version: version, headers: headers,
            keepAliveHint: keepAlive)
        return (framing, expectContinue && framing != .none && version.minor >= 1)
    }

    /// Marks the bytes of `word` (little-endian: byte 0 first) that need a check in a request target: the high bit
    /// of a byte is set unless it is in `&`…`z` and none of `?`, `` ` ``, `<`, `>`, `\` and `^` (`!`, `$` and `~`
    /// are allowed but take the byte-by-byte check). Zero when all eight need none; otherwise the lowest marked
    /// byte is the first that needs one (bytes after it may be marked spuriously).
    ///
    /// Bit tricks: a byte at or above 0x80 sets its high bit in `above`; below that, `x - 0x01` per byte sets a
    /// high bit only where `x` is zero, and `x - 0x26` only where `x` is below 0x26, or where a lower byte borrowed
    /// — and such a lower byte is marked itself. So the usual `& ~x` is not needed.
    @inline(__always)
    static func targetWordMarks(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let below = word &- ones &* 0x26
        let above = (word &+ ones &* 0x05) | word
        // Zero bytes mark `?`, backtick, and `<`, `>`, `\`, `^` (`byte | 0x62 == 0x7E`; also `|`, `~` and two
        // controls, outside the range anyway).
        let questions = (word ^ ones &* UInt64(Byte.question)) &- ones
        let backticks = (word ^ ones &* 0x60) &- ones
        let delimiters = ((word | ones &* 0x62) ^ ones &* 0x7E) &- ones
        return (below | above | questions | backticks | delimiters) & 0x8080_8080_8080_8080
    }

    /// Whether a request target may hold `byte` as it is: RFC 3986 `unreserved`, `sub-delims`, `:`, `@`, `/` and
    /// the `[` `]` of IP literals. Not: `%` and `?` (checked by the caller), the space, controls, non-ASCII, `#`
    /// and the delimiters RFC 3986 leaves out (`<>"{}|\^` and backtick).
    @inline(__always)
    static func isPlainTargetByte(_ byte: UInt8) -> Bool {
        // Bit n of the pair is byte n (0x00–0x3F, 0x40–0x7F).
        let bits: UInt64 = byte < 0x40 ? 0x2FFF_FFD2_0000_0000 : 0x47FF_FFFE_AFFF_FFFF
        return byte < 0x80 && (bits &>> UInt64(byte & 0x3F)) & 1 != 0
    }

    /// Returns (method, target, version, path, query).
    static func parseRequestLine(
        _ p: Bytes, _ lineStart: Int, _ lineEnd: Int
    ) throws(HTTPParseError) -> (HTTPMethod, String, HTTPVersion, String, String?) {
        var index = lineStart
        while index < lineEnd && Byte.isTChar(p[index]) { index += 1 }
        guard index < lineEnd else { throw index == lineStart ? .invalidMethod : .missingVersion }
        guard index > lineStart else { throw p[index] == Byte.cr ? .bareCR : .invalidMethod }
        guard p[index] == Byte.space else { throw p[index] == Byte.cr ? .bareCR : .invalidMethod }
        let methodRange = lineStart..<index
        index += 1
        let targetStart = index
        var question = -1
        let base = UnsafeRawPointer(p.baseAddress!)
        while index < lineEnd {
            // Fast path: letters, digits, '/', '=', '-', '.', '_', '&' … need no check, eight bytes at a time, and
            // a word holding a byte that does is skipped up to it; the space, '%', '?' and every byte the target may
            // not hold take the checks below (RFC 3986, as llhttp). The request line goes on after the target
            // (" HTTP/1.1"), so the target's last bytes have a word too.
            if lineEnd &- index >= 8 {
                let marks = targetWordMarks(
                    UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                if marks == 0 {
                    index &+= 8
                    continue
                }
                index &+= marks.trailingZeroBitCount &>> 3
            }
            let byte = p[index]
            if isPlainTargetByte(byte) {
                index += 1
                continue
            }
            if byte == Byte.space { break }
            if byte == Byte.question {
                if question < 0 { question = index }
            } else if byte == Byte.percent {
                guard index + 2 < lineEnd, PercentDecoding.hexValue(p[index + 1]) != nil,
                    PercentDecoding.hexValue(p[index + 2]) != nil
                else { throw .invalidTarget }
            } else {
                throw byte == Byte.cr ? .bareCR : .invalidTargetCharacter
            }
            index += 1
        }
        let targetEnd = index
        guard targetEnd > targetStart else { throw .invalidRequestLine }
        guard index < lineEnd else { throw .missingVersion }
        index += 1
        guard lineEnd - index == 8, p[index] == 0x48, p[index + 1] == 0x54, p[index + 2] == 0x54,
            p[index + 3] == 0x50, p[index + 4] == Byte.slash, p[index + 6] == 0x2E,
            case let major = p[index + 5] &- 0x30, major <= 9,
            case let minor = p[index + 7] &- 0x30, minor <= 9
        else {
            for byte in p[index..<lineEnd] where byte == Byte.cr { throw .bareCR }
            throw .invalidRequestLine
        }
        guard major == 1 else { throw .unsupportedVersion }
        let version = HTTPVersion(major: 1, minor: Int(minor))

        let method = makeMethod(p, methodRange)
        let target = string(p, targetStart..<targetEnd)
        if method == .connect { throw .connectNotSupported }

        let path: String
        var query: String?
        if p[targetStart] == Byte.slash {
            if question >= 0 {
                path = string(p, targetStart..<question)
                query = string(p, question + 1..<targetEnd)
            } else {
                path = target
            }
        } else if targetEnd - targetStart == 1 && p[targetStart] == Byte.star {
            guard method == .options else { throw .invalidTarget }
            path = "*"
        } else {
            // absolute-form: http(s)://authority[/path][?query]
            guard let pathStart = absoluteFormPathStart(p, targetStart, targetEnd) else { throw .invalidTarget }
            let pathEnd = question >= 0 ? question : targetEnd
            path = pathStart < pathEnd ? string(p, pathStart..<pathEnd) : "/"
            if question >= 0 { query = string(p, question + 1..<targetEnd) }
        }
        return (method, target, version, path, query)
    }

    /// For `scheme://authority/...` returns the index where the path starts; `nil` for another scheme or an
    /// invalid authority.
    static func absoluteFormPathStart(_ p: Bytes, _ start: Int, _ end: Int) -> Int? {
        var index = start
        while index < end {
            let byte = asciiLower(p[index])
            if byte == Byte.colon { break }
            guard (byte >= 0x61 && byte <= 0x7A) || (index > start && (byte == 0x2B || byte == 0x2D || byte == 0x2E))
            else { return nil }
            index += 1
        }
        let scheme = string(p, start..<index)
        guard scheme.asciiCaseInsensitiveEquals("http") || scheme.asciiCaseInsensitiveEquals("https") else {
            return nil
        }
        guard index + 2 < end, p[index + 1] == Byte.slash, p[index + 2] == Byte.slash else { return nil }
        let authorityStart = index + 3
        index = authorityStart
        while index < end && p[index] != Byte.slash && p[index] != Byte.question { index += 1 }
        // A host with the Host field's syntax: no userinfo (`@`, not allowed in http(s) URIs, RFC 9110 §4.2.4), not
        // empty (§4.2.1).
        do { try validateHost(p, authorityStart..<index) } catch { return nil }
        return index
    }

    static func makeMethod(_ p: Bytes, _ range: Range<Int>) -> HTTPMethod {
        let first = p[range.lowerBound]
        switch range.count {
        case 3 where first == 0x47 && p[range.lowerBound + 1] == 0x45 && p[range.lowerBound + 2] == 0x54:
            return HTTPMethod.get
        case 4 where first == 0x48 && string(p, range) == "HEAD": return HTTPMethod.head
        case 4 where first == 0x50 && string(p, range) == "POST": return HTTPMethod.post
        default: return HTTPMethod(string(p, range))
        }
    }

    /// Validates a field line; returns the name range and the OWS-trimmed value range.
    @inline(__always)
    static func parseFieldLine(
        _ p: Bytes, _ lineStart: Int, _ lineEnd: Int
    ) throws(HTTPParseError) -> (Range<Int>, Range<Int>) {
        let first = p[lineStart]
        if first == Byte.space || first == Byte.tab { throw .obsFold }
        var index = lineStart
        while index < lineEnd && Byte.isTChar(p[index]) { index += 1 }
        guard index < lineEnd else { throw .invalidFieldName }
        let byte = p[index]
        guard byte == Byte.colon else {
            if byte == Byte.space || byte == Byte.tab { throw .whitespaceBeforeColon }
            if byte == Byte.cr { throw .bareCR }
            throw .invalidFieldName
        }
        guard index > lineStart else { throw .invalidFieldName }
        let nameRange = lineStart..<index
        var valueStart = index + 1
        while valueStart < lineEnd && (p[valueStart] == Byte.space || p[valueStart] == Byte.tab) { valueStart += 1 }
        var valueEnd = lineEnd
        while valueEnd > valueStart && (p[valueEnd - 1] == Byte.space || p[valueEnd - 1] == Byte.tab) {
            valueEnd -= 1
        }
        var scan = valueStart
        while scan < valueEnd {
            let value = p[scan]
            if (value < 0x20 && value != Byte.tab) || value == 0x7F {
                throw value == Byte.cr ? .bareCR : .invalidFieldValue
            }
            scan += 1
        }
        return (nameRange, valueStart..<valueEnd)
    }

    static func parseContentLength(_ p: Bytes, _ range: Range<Int>) throws(HTTPParseError) -> Int {
        var result: Int?
        var index = range.lowerBound
        while index <= range.upperBound {
            // One list element: OWS 1*DIGIT OWS
            while index < range.upperBound && (p[index] == Byte.space || p[index] == Byte.tab) { index += 1 }
            var value = 0
            var digits = 0
            while index < range.upperBound, case let digit = p[index] &- 0x30, digit <= 9 {
                if digits == 18 { throw .invalidContentLength }
                value = value * 10 + Int(digit)
                digits += 1
                index += 1
            }
            guard digits > 0 else { throw .invalidContentLength }
            while index < range.upperBound && (p[index] == Byte.space || p[index] == Byte.tab) { index += 1 }
            if let result, result != value { throw .conflictingContentLength }
            result = value
            if index == range.upperBound { break }
            guard p[index] == Byte.comma else { throw .invalidContentLength }
            index += 1
        }
        guard let result else { throw .invalidContentLength }
        return result
    }
}
