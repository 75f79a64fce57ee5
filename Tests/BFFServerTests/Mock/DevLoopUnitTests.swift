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
        let located = FileDiagnostic(
            file: "cart.json", diagnostic: .error("invalid_setting", "/server/pageSize", "pageSize is an integer ≥ 0"),
            position: JSONSourceMap.Position(line: 7, column: 14, offset: 120))
        #expect(located.staleNotice == "cart.json: 7:14: invalid_setting")
        let content = FileDiagnostic(
            file: "cart.json", diagnostic: .error("unknown_widget_type", "/page/sections/0/widgets/1/type", "…"))
        #expect(content.staleNotice == "cart.json: /page/sections/0/widgets/1/type: unknown_widget_type")
        let root = FileDiagnostic(file: "cart.json", diagnostic: .error("invalid_json", .root, "…"))
        #expect(root.staleNotice == "cart.json: /: invalid_json")
        let unicode = FileDiagnostic(file: "cart.json", diagnostic: .error("unknown_setting", "/server/grö\n", "…"))
        #expect(unicode.staleNotice == "cart.json: /server/gr%C3%B6%0A: unknown_setting")
    }
}
