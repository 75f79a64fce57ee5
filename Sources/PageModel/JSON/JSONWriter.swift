/// Serialises ``JSONValue`` to compact UTF-8 JSON.
///
/// Output is deterministic: object members in their stored order, integral numbers without a fraction, other
/// numbers in Swift's shortest round-trip form, and only the escapes RFC 8259 requires (plus `/` left alone).
public struct JSONWriter: Sendable {
    public init() {}

    public func write(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        Self.append(value, to: &output)
        return output
    }

    public func string(_ value: JSONValue) -> String {
        String(decoding: write(value), as: UTF8.self)
    }

    static func append(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(true): output.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        case .bool(false): output.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .number(let number): appendNumber(number, to: &output)
        case .string(let string): appendString(string, to: &output)
        case .array(let array):
            output.append(UInt8(ascii: "["))
            for (offset, element) in array.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                append(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                append(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func appendNumber(_ number: Double, to output: inout [UInt8]) {
        if abs(number) < 1e15, let integer = Int64(exactly: number) {
            output.append(contentsOf: String(integer).utf8)
        } else if number.isFinite {
            output.append(contentsOf: "\(number)".utf8)
        } else {
            output.append(contentsOf: "null".utf8)
        }
    }

    static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `string` as a JSON string literal (quoted and escaped) to `output`.
    public static func appendString(_ string: String, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendEscaped($0, to: &output) }
    }

    /// Appends `string` as a JSON string literal (quoted and escaped) to `output`, without copying it into a
    /// `String` first (the access log's path, a slice of the request target).
    public static func appendString(_ string: Substring, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendEscaped($0, to: &output) }
    }

    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        for (position, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
            runStart = position + 1
            switch byte {
            case 0x22: output.append(contentsOf: [0x5C, 0x22])
            case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            default:
                output.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            }
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        output.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String { JSONWriter().string(self) }
}
