import Testing

@testable import PageModel

@Suite struct JSONSourceMapTests {
    let text = """
        {
          "a": [1, {"b": "é", "c/d": true}],
          "e\\u0066": null,
          "é": {"x": "y"}
        }
        """

    @Test func everyValueHasItsLineAndColumn() throws {
        let map = try #require(JSONSourceMap(bytes: Array(text.utf8)))
        #expect(map.position(of: "")?.description == "1:1")
        #expect(map.position(of: "/a")?.description == "2:8")
        #expect(map.position(of: "/a/0")?.description == "2:9")
        #expect(map.position(of: "/a/1/b")?.description == "2:18")
        #expect(map.position(of: "/a/1/c~1d")?.description == "2:30", "columns count characters, not bytes")
        #expect(map.position(of: "/ef")?.description == "3:14", "escaped keys are decoded")
        #expect(map.position(of: "/é/x")?.description == "4:14")
    }

    @Test func aMissingMemberPointsAtItsNearestParent() throws {
        let map = try #require(JSONSourceMap(bytes: Array(text.utf8)))
        #expect(map.position(of: "/a/1/missing/deeper") == map.position(of: "/a/1"))
        #expect(map.position(of: "/nothing") == map.position(of: ""))
    }

    @Test func aPointerFindsItsValue() {
        let value: JSONValue = ["a": [1, ["b/c": "x"]]]
        #expect(value.value(at: "/a/1/b~1c") == "x")
        #expect(value.value(at: "") == value)
        #expect(value.value(at: "/a/2") == nil)
        #expect(value.value(at: "/a/x") == nil)
        #expect(value.value(at: "/a/0/deeper") == nil)
    }

    @Test func invalidTextHasNoMap() {
        #expect(JSONSourceMap(bytes: Array(#"{"a": [}"#.utf8)) == nil)
        #expect(JSONSourceMap(bytes: Array(#"{"a": 1} 2"#.utf8)) == nil)
        #expect(JSONSourceMap(bytes: []) == nil)
    }
}
