/// Header fields serialized once (`Name: value\r\n…`), for responses that carry the same fields many times — a
/// page's `Cache-Control` and `Vary`. ``Connection`` appends the bytes as they are, where it would otherwise
/// check and copy each field of ``HTTPResponse/headers`` per response.
///
/// Fields are checked once, here, by the rules applied to ``HTTPResponse/headers``: a field the server writes
/// itself (`Date`, `Connection`, `Content-Length`, `Transfer-Encoding`) or a malformed one (a name that is not a
/// token, a control character in the value) is left out and named in ``droppedFieldNames``.
public struct HTTPHeaderBlock: Sendable, Equatable {
    /// The serialized fields, each ending in CRLF.
    public let bytes: [UInt8]
    /// Names of the fields that were left out.
    public let droppedFieldNames: [String]

    public init(_ fields: HTTPFields) {
        var bytes: [UInt8] = []
        var dropped: [String] = []
        for field in fields {
            guard HTTPHeaderBlock.isWritable(field) else {
                dropped.append(field.name)
                continue
            }
            HTTPHeaderBlock.append(field, to: &bytes)
        }
        self.bytes = bytes
        droppedFieldNames = dropped
    }

    static let requestIDName = Array("X-Request-ID: ".utf8)

    /// Appends `X-Request-ID: id` when `id` is 1–128 visible ASCII characters; returns whether it did.
    static func appendRequestID(_ id: String, to bytes: inout [UInt8]) -> Bool {
        var id = id
        return id.withUTF8 { id in
            guard (1...128).contains(id.count), id.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
            bytes.append(contentsOf: requestIDName)
            bytes.append(contentsOf: id)
            bytes.append(Byte.cr)
            bytes.append(Byte.lf)
            return true
        }
    }

    /// Whether `field` may be written as given: not server-managed, and well-formed.
    static func isWritable(_ field: HTTPFields.Field) -> Bool { writability(field) == .writable }

    enum Writability { case writable, managed, malformed }

    static func writability(_ field: HTTPFields.Field) -> Writability {
        var name = field.name
        var value = field.value
        return name.withUTF8 { name in
            value.withUTF8 { value in
                guard !name.isEmpty else { return .malformed }
                if isManaged(name) { return .managed }
                var valid = true
                for byte in name where !Byte.isTChar(byte) { valid = false }
                for byte in value where (byte < 0x20 && byte != Byte.tab) || byte == 0x7F { valid = false }
                return valid ? .writable : .malformed
            }
        }
    }

    /// Appends `Name: value\r\n`.
    static func append(_ field: HTTPFields.Field, to bytes: inout [UInt8]) {
        ByteFormatting.append(field.name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        ByteFormatting.append(field.value, to: &bytes)
        bytes.append(Byte.cr)
        bytes.append(Byte.lf)
    }

    /// Fields the server writes itself (`Date`, `Connection`, `Content-Length`, `Transfer-Encoding`).
    private static func isManaged(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 4: name.asciiCaseInsensitiveEquals("date")
        case 10: name.asciiCaseInsensitiveEquals("connection")
        case 14: name.asciiCaseInsensitiveEquals("content-length")
        case 17: name.asciiCaseInsensitiveEquals("transfer-encoding")
        default: false
        }
    }
}
