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
        guard let base = bytes.baseAddress else {
            output.append(UInt8(ascii: "\""))
            return
        }
        let count = bytes.count
        var runStart = 0
        var position = 0
        while position < count {
            // Eight bytes at a time while none of them needs an escape (nearly every string of a page).
            while position + 8 <= count,
                !needsEscape(UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            {
                position += 8
            }
            let end = min(position + 8, count)
            while position < end {
                let byte = base[position]
                position += 1
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position - 1]))
                runStart = position
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
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
        output.append(UInt8(ascii: "\""))
    }

    /// Whether one of the eight bytes of `word` is a control character, `"` or `\` (the classic "has less than"
    /// and "has zero" word tests: exact about whether such a byte exists, which is all the scan asks).
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return (control | ((quote &- ones) & ~quote & highs) | ((backslash &- ones) & ~backslash & highs)) != 0
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String { JSONWriter().string(self) }
}
