/// The `Host` field's syntax (RFC 9112 §3.2): `uri-host [ ":" port ]`, the authority of RFC 3986 §3.2.2–3.2.3
/// without userinfo.
///
///     uri-host    = IP-literal / IPv4address / reg-name
///     IP-literal  = "[" ( IPv6address / IPvFuture ) "]"
///     IPvFuture   = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
///     reg-name    = *( unreserved / pct-encoded / sub-delims )
///     port        = *DIGIT
///
/// Stricter than the grammar: the host may not be empty (RFC 9110 §4.2.1) and the port is at most 65535. An empty
/// port (`example.com:`) is allowed, as RFC 3986 allows it (it means the scheme's default). IPv4 addresses are
/// reg-names syntactically (`1.2.3.999` passes), as in RFC 3986; IPv6 zone identifiers (RFC 6874) are refused.
extension HeadParser {
    /// Throws ``HTTPParseError/emptyHost``, ``HTTPParseError/invalidHost``,
    /// ``HTTPParseError/invalidHostLiteral`` or ``HTTPParseError/invalidHostPort`` unless `p[range]` is a valid
    /// `Host` value.
    static func validateHost(_ p: Bytes, _ range: Range<Int>) throws(HTTPParseError) {
        let end = range.upperBound
        var index = range.lowerBound
        guard index < end else { throw .emptyHost }
        if p[index] == Byte.openBracket {
            var close = index + 1
            while close < end && p[close] != Byte.closeBracket { close += 1 }
            guard close < end, isIPLiteral(p, index + 1, close) else { throw .invalidHostLiteral }
            index = close + 1
        } else {
            while index < end && p[index] != Byte.colon {
                let byte = p[index]
                if byte == Byte.percent {
                    guard index + 2 < end, PercentDecoding.hexValue(p[index + 1]) != nil,
                        PercentDecoding.hexValue(p[index + 2]) != nil
                    else { throw .invalidHost }
                    index += 3
                    continue
                }
                guard isRegNameByte(byte) else { throw .invalidHost }
                index += 1
            }
            if index == range.lowerBound { throw .emptyHost }
        }
        guard index < end else { return }
        guard p[index] == Byte.colon else { throw .invalidHost }
        index += 1
        var port = 0
        while index < end {
            let digit = p[index] &- 0x30
            guard digit <= 9 else { throw .invalidHostPort }
            port = port * 10 + Int(digit)
            guard port <= 65535 else { throw .invalidHostPort }
            index += 1
        }
    }

    /// `unreserved / sub-delims`: `A-Z a-z 0-9 - . _ ~ ! $ & ' ( ) * + , ; =`.
    @inline(__always)
    static func isRegNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x2D, 0x2E, 0x5F, 0x7E, 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D: true
        default: false
        }
    }

    /// The inside of `[` … `]`: an IPv6 address or an IPvFuture.
    static func isIPLiteral(_ p: Bytes, _ start: Int, _ end: Int) -> Bool {
        guard start < end else { return false }
        guard p[start] | 0x20 == 0x76 else { return isIPv6Address(p, start, end) }  // "v" / "V"
        var index = start + 1
        while index < end && PercentDecoding.hexValue(p[index]) != nil { index += 1 }
        guard index > start + 1, index < end, p[index] == 0x2E, index + 1 < end else { return false }
        for byte in p[(index + 1)..<end] where !isRegNameByte(byte) && byte != Byte.colon { return false }
        return true
    }

    /// RFC 3986 §3.2.2 `IPv6address`: eight 1–4 digit hex pieces separated by `:`, the last two possibly written as
    /// an IPv4 address, one run of zero pieces possibly elided as `::`.
    static func isIPv6Address(_ p: Bytes, _ start: Int, _ end: Int) -> Bool {
        var pieces = 0
        var elided = false
        var index = start
        if end - start >= 2 && p[start] == Byte.colon {
            guard p[start + 1] == Byte.colon else { return false }
            elided = true
            index += 2
        }
        while index < end {
            let pieceStart = index
            while index < end && index - pieceStart < 5 && PercentDecoding.hexValue(p[index]) != nil { index += 1 }
            if index < end && p[index] == 0x2E {
                // The IPv4 form ends the address and stands for two pieces.
                guard isIPv4Address(p, pieceStart, end) else { return false }
                pieces += 2
                break
            }
            guard index > pieceStart && index - pieceStart <= 4 else { return false }
            pieces += 1
            guard index < end else { break }
            guard p[index] == Byte.colon, index + 1 < end else { return false }
            index += 1
            if p[index] == Byte.colon {
                guard !elided else { return false }
                elided = true
                index += 1
            }
        }
        return elided ? pieces <= 7 : pieces == 8
    }

    /// RFC 3986 `IPv4address`: four `dec-octet`s (0–255, no leading zeros) separated by `.`.
    static func isIPv4Address(_ p: Bytes, _ start: Int, _ end: Int) -> Bool {
        var index = start
        for octet in 0..<4 {
            if octet > 0 {
                guard index < end, p[index] == 0x2E else { return false }
                index += 1
            }
            let digitsStart = index
            var value = 0
            while index < end, case let digit = p[index] &- 0x30, digit <= 9, index - digitsStart < 3 {
                value = value * 10 + Int(digit)
                index += 1
            }
            let digits = index - digitsStart
            guard digits > 0, value <= 255, digits == 1 || p[digitsStart] != 0x30 else { return false }
        }
        return index == end
    }
}
