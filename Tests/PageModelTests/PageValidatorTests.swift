import Testing

@testable import PageModel

@Suite struct PageValidatorTests {
    let validator = PageValidator()

    func codes(_ page: PageModel) -> [String] { validator.validate(page).map(\.code) }

    @Test func aCleanPageHasNoFindings() {
        let page = PageModel(
            id: "p",
            sections: [
                Section(
                    id: "s",
                    widgets: [
                        Widget(id: "b", type: "button", content: ["title": "Buy"], actions: ["tap": .api(name: "buy")])
                    ])
            ])
        #expect(validator.validate(page).isEmpty)
    }

    @Test func emptySectionIsAWarning() {
        let findings = validator.validate(
            PageModel(
                id: "p", sections: [Section(id: "s"), Section(id: "t", widgets: [Widget(id: "d", type: "divider")])]))
        #expect(findings == [.warning("empty_section", "/page/sections/0/widgets", "section \"s\" has no widgets")])
    }

    @Test func paginationOnAnEmptyPageIsAnError() {
        let findings = validator.validate(PageModel(id: "p", pagination: Pagination(hasMore: true, postback: "x")))
        #expect(findings.map(\.code) == ["pagination_on_empty_page"])
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.path == "/page/pagination")
    }

    @Test func nestingDeeperThanTheBudgetIsAnError() {
        var widget = Widget(id: "leaf", type: "text", content: ["text": "x"])
        for level in 0..<10 {
            widget = Widget(id: "a\(level)", type: "accordion", content: ["title": "t"], children: [widget])
        }
        let findings = validator.validate(PageModel(id: "p", sections: [Section(id: "s", widgets: [widget])]))
        #expect(findings.map(\.code) == ["nesting_too_deep"])
        #expect(
            findings.first?.path.string == "/page/sections/0/widgets/0" + String(repeating: "/children/0", count: 9))
    }

    @Test func sizeBudgets() {
        var budgets = PageValidator.Budgets()
        budgets.maximumWidgetsPerSection = 2
        budgets.maximumSections = 1
        budgets.maximumContentBytes = 20
        let strict = PageValidator(budgets: budgets)
        let page = PageModel(
            id: "p",
            sections: [
                Section(
                    id: "s1", widgets: [Widget(id: "t", type: "text", content: ["text": "a very long text indeed"])]),
                Section(
                    id: "s2",
                    widgets: [
                        Widget(id: "d1", type: "divider"), Widget(id: "d2", type: "divider"),
                        Widget(id: "d3", type: "divider"),
                    ]),
            ])
        let findings = strict.validate(page)
        #expect(findings.map(\.code) == ["budget_exceeded", "budget_exceeded", "budget_exceeded"])
        #expect(
            findings.map(\.path.string) == [
                "/page/sections", "/page/sections/0/widgets/0/content", "/page/sections/1/widgets",
            ])
    }

    @Test func containersNeedChildrenAndLeavesTakeNone() {
        let page = PageModel(
            id: "p",
            sections: [
                Section(
                    id: "s",
                    widgets: [
                        Widget(id: "acc", type: "accordion", content: ["title": "t"]),
                        Widget(
                            id: "txt", type: "text", content: ["text": "t"],
                            children: [Widget(id: "d", type: "divider")]),
                    ])
            ])
        let findings = validator.validate(page)
        #expect(findings.map(\.code) == ["missing_children", "unexpected_children"])
        #expect(findings.map(\.severity) == [.error, .warning])
    }

    @Test func actionsOnEventsTheTypeNeverFiresAreFlagged() {
        let page = PageModel(
            id: "p",
            sections: [
                Section(
                    id: "s",
                    widgets: [Widget(id: "t", type: "text", content: ["text": "t"], actions: ["tap": .dismiss])])
            ])
        #expect(codes(page) == ["unsupported_event"])
    }

    @Test func interactiveWidgetsWithoutBackendIDsAreFlagged() throws {
        let decoded = try decodePage(
            envelope(
                #"{"id": "p", "sections": [{"id": "s", "widgets": [{"type": "button", "content": {"title": "Go"}, "actions": {"tap": {"type": "dismiss"}}}]}]}"#
            ))
        let findings = validator.validate(decoded.value)
        #expect(findings.map(\.code) == ["interactive_widget_without_id"])
        #expect(findings.first?.widgetID == "button@sections.0.widgets.0")
    }

    /// `unsafe_url` (docs/check.md § URLs): script URLs in deeplinks and URL content fields, however a browser would
    /// still read them as script; ordinary and relative URLs pass.
    @Test func scriptURLsInDeeplinksAndImagesAreErrors() {
        func findings(deeplink: String, image: String) -> [Diagnostic] {
            let widget = Widget(
                id: "b", type: "banner", content: ["title": "Sale", "imageURL": .string(image)],
                actions: ["tap": .deeplink(url: deeplink)])
            return validator.validate(PageModel(id: "p", sections: [Section(id: "s", widgets: [widget])]))
        }
        #expect(findings(deeplink: "larder://cart", image: "https://img.example.com/a.jpg").isEmpty)
        #expect(findings(deeplink: "/relative/route", image: "thumbs/a.jpg").isEmpty)
        #expect(findings(deeplink: "https://example.com/javascript:x", image: "data:image/png;base64,iVBO").isEmpty)
        for script in ["javascript:alert(1)", "JavaScript:alert(1)", " \u{01}java\tscript:alert(1)", "vbscript:x"] {
            let found = findings(deeplink: script, image: script)
            #expect(found.map(\.code) == ["unsafe_url", "unsafe_url"], "\(script)")
            #expect(
                found.map(\.path) == [
                    "/page/sections/0/widgets/0/actions/tap/url", "/page/sections/0/widgets/0/content/imageURL",
                ])
            #expect(found.allSatisfy { $0.severity == .error && $0.widgetID == "b" })
        }
        #expect(findings(deeplink: "data:text/html,<script>", image: "https://a").map(\.code) == ["unsafe_url"])
        #expect(findings(deeplink: "file:///etc/passwd", image: "https://a").map(\.code) == ["unsafe_url"])
        #expect(findings(deeplink: "larder://a", image: "data:image/svg+xml,<svg/>").map(\.code) == ["unsafe_url"])
        #expect(findings(deeplink: "larder://a", image: "data:image/sv\tg+xml,<svg/>").map(\.code) == ["unsafe_url"])
        #expect(findings(deeplink: "larder://a", image: "data:Image/\nSVG+xml,<svg/>").map(\.code) == ["unsafe_url"])
        #expect(findings(deeplink: "larder://a", image: "data:text/html,x").map(\.code) == ["unsafe_url"])
    }

    @Test func aScriptDeeplinkEffectIsAnError() {
        let response = ActionResponse(
            mutations: [], effects: [.toast(message: "ok"), .deeplink(url: "javascript:alert(1)")])
        let found = validator.validate(response)
        #expect(found.map(\.code) == ["unsafe_url"])
        #expect(found.first?.path == "/effects/1/url")
        #expect(validator.validate(ActionResponse(mutations: [], effects: [.deeplink(url: "larder://a")])).isEmpty)
    }

    @Test func theSchemeIsReadLikeABrowserReadsIt() {
        #expect(URLSafety.scheme(of: "  JAVA\nSCRIPT:x") == "JAVASCRIPT")
        #expect(URLSafety.scheme(of: "larder://cart") == "larder")
        #expect(URLSafety.scheme(of: "/a:b") == nil)
        #expect(URLSafety.scheme(of: "1abc:x") == nil)
        #expect(URLSafety.scheme(of: "no-colon") == nil)
    }
}
