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
        #expect(syntax.staleNotice == "cart.json: 3:14: invalid_json")
        let content = FileDiagnostic(
            file: "cart.json", diagnostic: .error("unknown_widget_type", "/page/sections/0/widgets/1/type", "…"))
        #expect(content.staleNotice == "cart.json: /page/sections/0/widgets/1/type: unknown_widget_type")
        let unicode = FileDiagnostic(file: "cart.json", diagnostic: .error("unknown_setting", "/server/grö\n", "…"))
        #expect(unicode.staleNotice == "cart.json: /server/gr%C3%B6%0A: unknown_setting")
    }
}
