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
