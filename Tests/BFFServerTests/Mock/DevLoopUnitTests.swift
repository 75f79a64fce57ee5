import PageModel
import Testing

@testable import BFFServer

/// The pure parts of dev-loop honesty: the stale notice and the index's HTML escaping.
@Suite struct DevLoopUnitTests {
    @Test func theIndexEscapesNames() {
        #expect(MockLayer.escaped(#"<a href="x">&'"#) == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        let html = MockLayer.indexHTML([
            "catalogVersion": "v", "preview": .null,
            "pages": [["id": "<script>", "href": "/v1/pages/<script>", "scenarios": [], "source": "file"]],
            "actions": [], "admin": [], "brokenFiles": [],
        ])
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;"))
    }

    @Test func theStaleNoticeNamesThePositionOrThePath() {
        let syntax = FileDiagnostic(
            file: "cart.json", diagnostic: .error("invalid_json", .root, "expected a value at line 3, column 14"))
        #expect(syntax.staleNotice() == "cart.json: 3:14: invalid_json")
        let content = FileDiagnostic(
            file: "cart.json", diagnostic: .error("unknown_widget_type", "/page/sections/0/widgets/1/type", "…"))
        #expect(content.staleNotice() == "cart.json: /page/sections/0/widgets/1/type: unknown_widget_type")
        let unicode = FileDiagnostic(file: "cart.json", diagnostic: .error("unknown_setting", "/server/grö\n", "…"))
        #expect(unicode.staleNotice() == "cart.json: /server/gr%C3%B6%0A: unknown_setting")
    }

    @Test func theStaleNoticeFindsWhereThePointerIsWrittenInTheSource() {
        let source = Array(
            """
            {
              "schemaVersion": 1,
              "page": {"id": "cart", "sections": [
                {"id": "s0", "widgets": []},
                {"id": "s1", "widgets": [{"id": "w\\"1", "type": "text"}, {"id": "wö", "type": "txet"}]}
              ]},
              "server": {"pageSize": -1, "a/b": {"~x": 2}}
            }
            """.utf8)
        func position(_ pointer: JSONPointer) -> String? { JSONSourcePosition.of(pointer, in: source)?.description }
        #expect(position(.root) == "1:1")
        #expect(position("/schemaVersion") == "2:3")
        #expect(position("/server/pageSize") == "7:14")
        #expect(position("/page/sections/1") == "5:5")
        #expect(position("/page/sections/1/widgets/1/type") == "5:75")
        #expect(position("/server/a~1b/~0x") == "7:38")
        // Past what the text holds: the deepest value reached.
        #expect(position("/server/cacheControl") == "7:3")
        #expect(position("/page/sections/9") == "3:26")
        #expect(JSONSourcePosition.of("/a", in: Array(#"{"a" 1}"#.utf8)) == nil)

        let content = FileDiagnostic(
            file: "cart.json", diagnostic: .error("invalid_setting", "/server/pageSize", "pageSize is an integer ≥ 0"))
        #expect(content.staleNotice(source: source) == "cart.json: 7:14: invalid_setting")
    }
}
