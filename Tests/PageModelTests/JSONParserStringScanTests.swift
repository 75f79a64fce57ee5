import Testing

@testable import PageModel

/// The parser skips plain string bytes eight at a time; whatever byte position a quote, escape, control character
/// or non-ASCII character falls on, the result and the error position are those of a byte-by-byte scan.
@Suite struct JSONParserStringScanTests {
    let parser = JSONParser()

    @Test(arguments: 0..<20)
    func specialBytesAtEveryOffset(offset: Int) throws {
        let plain = String(repeating: "a", count: offset)
        let tail = String(repeating: "b", count: 11)
        #expect(try parser.parse(Array("\"\(plain)\"".utf8)) == .string(plain))
        #expect(try parser.parse(Array(#""\#(plain)\n\#(tail)""#.utf8)) == .string(plain + "\n" + tail))
        #expect(
            try parser.parse(Array("\"\(plain)é\(tail)€\(plain)\"".utf8)) == .string(plain + "é" + tail + "€" + plain))
        #expect(throws: JSONSyntaxError.self) { try parser.parse(Array("\"\(plain)\u{1}\(tail)\"".utf8)) }
        do {
            _ = try parser.parse(Array("\"\(plain)\u{1}\(tail)\"".utf8))
        } catch {
            #expect(error.message == "control character in string")
            #expect(error.column == offset + 2)
        }
        var invalid = Array("\"\(plain)".utf8) + [0xC3] + Array("\(tail)\"".utf8)
        #expect(throws: JSONSyntaxError.self) { try parser.parse(invalid) }
        invalid = Array("\"\(plain)\(tail)".utf8)
        #expect(throws: JSONSyntaxError.self) { try parser.parse(invalid) }
    }
}
