import Testing

@testable import PageModel

/// `JSONWriter.appendString` for a `String` and for a `Substring` write the same quoted, escaped bytes.
@Suite struct JSONWriterStringTests {
    @Test(arguments: [
        ("", #""""#),
        ("/v1/pages/feed", #""/v1/pages/feed""#),
        ("a\"b\\c\nd\re\tf\u{1}", #""a\"b\\c\nd\re\tf\u0001""#),
        ("é😀", "\"é😀\""),
    ])
    func stringAndSubstringWriteTheSameBytes(text: String, expected: String) {
        var fromString: [UInt8] = []
        JSONWriter.appendString(text, to: &fromString)
        var fromSubstring: [UInt8] = []
        let target = "x" + text + "?postback=abc"
        let slice = target.dropFirst().prefix(text.count)
        JSONWriter.appendString(slice, to: &fromSubstring)
        #expect(String(decoding: fromString, as: UTF8.self) == expected)
        #expect(fromSubstring == fromString)
    }

    /// The escape scan reads eight bytes at a time: every escaped byte, at every position around those words and in
    /// the tail, is escaped exactly as the byte-by-byte rule says, and the result parses back to the string.
    @Test func everyEscapeAtEveryPosition() throws {
        let specials: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x22, 0x5C]
        let plain: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x7F, 0xC3, 0xA9]  // é as two bytes
        for length in 0..<20 {
            for position in 0..<max(length, 1) {
                for special in specials + plain {
                    var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                    if length > 0 { bytes[position] = special }
                    guard let text = String(validating: bytes, as: UTF8.self) else { continue }
                    var written: [UInt8] = []
                    JSONWriter.appendString(text, to: &written)
                    #expect(written == Self.reference(bytes), "\(bytes)")
                    #expect(try JSONParser().parse(written) == .string(text))
                }
            }
        }
    }

    /// The byte-by-byte rule (RFC 8259's required escapes).
    static func reference(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x22]
        for byte in bytes {
            switch byte {
            case 0x22: output += [0x5C, 0x22]
            case 0x5C: output += [0x5C, 0x5C]
            case 0x0A: output += [0x5C, UInt8(ascii: "n")]
            case 0x0D: output += [0x5C, UInt8(ascii: "r")]
            case 0x09: output += [0x5C, UInt8(ascii: "t")]
            case ..<0x20: output += Array("\\u00".utf8) + Array(String(byte, radix: 16).leftPadded(2).utf8)
            default: output.append(byte)
            }
        }
        return output + [0x22]
    }

    @Test func theWordTestFindsEveryByteThatNeedsAnEscape() {
        for byte in UInt8.min...UInt8.max {
            for lane in 0..<8 {
                let word =
                    (UInt64(0x6161_6161_6161_6161) & ~(UInt64(0xFF) << (lane * 8))) | (UInt64(byte) << (lane * 8))
                #expect(
                    JSONWriter.needsEscape(word) == (byte < 0x20 || byte == 0x22 || byte == 0x5C), "\(byte) at \(lane)")
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
