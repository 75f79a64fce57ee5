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
}
