import Testing

@testable import PageModel

@Suite struct JSONParserTests {
    let parser = JSONParser()

    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        (" false ", .bool(false)),
        ("0", .number(0)),
        ("-12", .number(-12)),
        ("3.25", .number(3.25)),
        ("1e3", .number(1000)),
        ("-2.5E-1", .number(-0.25)),
        ("12345678901234567890", .number(1.2345678901234567e19)),
        (#""a\"b\\c\/d\n""#, .string("a\"b\\c/d\n")),
        (#""\u00e9\ud83d\ude00""#, .string("é😀")),
        ("\"é😀\"", .string("é😀")),
        ("[]", .array([])),
        ("[1, [2], {}]", .array([1, [2], .object(JSONObject())])),
        (#"{"b": 1, "a": [true]}"#, ["b": 1, "a": [true]] as JSONValue),
    ])
    func parsesValid(_ text: String, _ expected: JSONValue) throws {
        #expect(try parser.parse(Array(text.utf8)) == expected)
    }

    @Test(arguments: [
        ("", "unexpected end of input"),
        ("nul", "invalid literal"),
        ("01", "leading zero in number"),
        ("1.", "invalid number"),
        ("-", "invalid number"),
        ("1e", "invalid number"),
        ("+1", "unexpected character '+'"),
        ("[1,]", "trailing comma before ']'"),
        ("[1 2]", "expected ',' or ']' after an array element, found '2'"),
        (#"{"a": 1 "b": 2}"#, "expected ',' or '}' after the value of \"a\", found '\"' (a missing comma?)"),
        ("{1: 2}", "expected a string key, found '1'"),
        (#"[{"a": 1} {"b": 2}]"#, "expected ',' or ']' after an array element, found '{' (a missing comma?)"),
        ("{\"a\": 1, “b”: 2}", "expected a string key, found '“'"),
        (#"{"a" 1}"#, "expected ':'"),
        (#"{"a": 1,}"#, "trailing comma before '}'"),
        (#"{"a": 1, "a": 2}"#, "duplicate key \"a\""),
        ("\"abc", "unterminated string"),
        ("\"a\u{01}b\"", "control character in string"),
        (#""\x""#, "invalid escape '\\x'"),
        (#""\ud800""#, "unpaired surrogate in \\u escape"),
        (#""\u12G4""#, "invalid \\u escape"),
        ("{} {}", "unexpected data after the JSON value"),
        ("1e999", "number out of range"),
    ])
    func rejectsInvalid(_ text: String, _ message: String) {
        #expect {
            try parser.parse(Array(text.utf8))
        } throws: { error in
            (error as? JSONSyntaxError)?.message == message
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try parser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func reportsLineAndColumn() throws {
        let error = #expect(throws: JSONSyntaxError.self) { try parser.parse(Array("{\n  \"a\": tru\n}".utf8)) }
        #expect(error?.line == 2)
        #expect(error?.column == 8)
    }

    /// A trailing comma is reported at the comma, by name — not at the `}` after it (issue 33).
    @Test func reportsATrailingCommaAtTheComma() throws {
        let text = "{\n  \"rows\": [1, 2],\n  \"total\": 2,\n}"
        let error = #expect(throws: JSONSyntaxError.self) { try parser.parse(Array(text.utf8)) }
        #expect(error?.message == "trailing comma before '}'")
        #expect(error?.line == 3)
        #expect(error?.column == 13)
    }

    @Test func limitsNestingDepth() throws {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        let error = #expect(throws: JSONSyntaxError.self) { try parser.parse(Array(deep.utf8)) }
        #expect(error?.message == "nesting deeper than 256 levels")
        let fine = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(throws: Never.self) { try parser.parse(Array(fine.utf8)) }
    }

    @Test func objectsWithManyKeysStillRejectDuplicates() {
        let keys = (0..<20).map { "\"k\($0)\": \($0)" }.joined(separator: ",")
        #expect(throws: JSONSyntaxError.self) { try parser.parse(Array("{\(keys), \"k3\": 0}".utf8)) }
        #expect(throws: Never.self) { try parser.parse(Array("{\(keys)}".utf8)) }
    }

    @Test func writerRoundTripsAndKeepsKeyOrder() throws {
        let text = #"{"z":1,"a":[true,false,null],"m":{"s":"line\nbreak \"q\" \\ \u0001","n":-0.5,"big":1e+20}}"#
        let value = try parser.parse(Array(text.utf8))
        let written = JSONWriter().string(value)
        #expect(
            written == #"{"z":1,"a":[true,false,null],"m":{"s":"line\nbreak \"q\" \\ \u0001","n":-0.5,"big":1e+20}}"#)
        #expect(try parser.parse(Array(written.utf8)) == value)
    }
}
