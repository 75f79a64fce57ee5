import Testing

@testable import PageModel

/// `JSONWriter.encodedCount(of:)` (the validator's content budget) counts exactly the bytes `write(_:)` writes.
@Suite struct JSONWriterCountTests {
    @Test(arguments: [
        "null", "true", "false", "0", "-0", "7", "-42", "1234567890123", "-999999999999999", "1e15", "-3.25",
        "1e300", "0.1", "-2.2250738585072014e-308", "1.7976931348623157e308", "-1.2345678901234567e-300", #""""#,
        #""plain""#, #""a\"b\\c\nd\re\tf\u0001\u001f/""#, #""é😀""#, "[]", "{}", "[1]",
        #"[1,"two",[],{}]"#, #"{"a":1}"#, #"{"title":"Hi","n":[1,2.5,null],"o":{"x":{"y":[true,false]}}}"#,
    ])
    func countMatchesWrittenBytes(json: String) throws {
        let value = try JSONParser().parse(Array(json.utf8))
        #expect(JSONWriter().encodedCount(of: value) == JSONWriter().write(value).count)
        #expect(JSONWriter().maximumEncodedCount(of: value) >= JSONWriter().write(value).count)
    }

    @Test func countMatchesForEverySamplePageWidget() throws {
        for name in ["feed", "home", "product", "cart", "checkout"] {
            let page = try PageDecoder().decodePage(try readBytes("pages/\(name).json")).value
            for widget in page.sections.flatMap(\.widgets) + page.header + page.footer {
                #expect(JSONWriter().encodedCount(of: widget.content) == JSONWriter().write(widget.content).count)
            }
        }
    }
}
