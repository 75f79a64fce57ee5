import Testing

@testable import PageModel

@Suite struct StableIDTests {
    @Test func backendIDsAreKept() throws {
        let page = try decodePage(
            envelope(
                #"{"id": "p", "sections": [{"id": "s1", "widgets": [{"id": "hello", "type": "text", "content": {"text": "Hi"}}]}]}"#
            )
        ).value
        #expect(page.sections[0].id == "s1")
        #expect(page.sections[0].widgets[0].id == "hello")
        #expect(page.sections[0].widgets[0].isGeneratedID == false)
    }

    @Test func missingIDsUseTypeAndCodingPath() throws {
        let decoded = try decodePage(
            envelope(
                #"""
                {"id": "p",
                 "header": [{"type": "banner", "content": {"title": "Sale"}}],
                 "sections": [{"widgets": [{"type": "divider"}, {"type": "accordion", "content": {"title": "More"},
                    "children": [{"type": "text", "content": {"text": "a"}}]}]}],
                 "footer": [{"type": "button", "content": {"title": "Go"}}]}
                """#))
        let page = decoded.value
        #expect(page.header[0].id == "banner@header.0")
        #expect(page.sections[0].id == "section@sections.0")
        #expect(page.sections[0].widgets[0].id == "divider@sections.0.widgets.0")
        #expect(page.sections[0].widgets[1].children[0].id == "text@sections.0.widgets.1.children.0")
        #expect(page.footer[0].id == "button@footer.0")
        #expect(page.footer[0].isGeneratedID)
        #expect(decoded.diagnostics.isEmpty)
    }

    @Test func duplicatesAreRenamedInDocumentOrderAcrossHeaderSectionsAndFooter() throws {
        let decoded = try decodePage(
            envelope(
                #"""
                {"id": "p",
                 "header": [{"id": "x", "type": "divider"}],
                 "sections": [{"id": "s", "widgets": [{"id": "x", "type": "divider"}, {"id": "x#2", "type": "divider"}]},
                              {"id": "s", "widgets": [{"id": "x", "type": "divider"}]}],
                 "footer": [{"id": "x", "type": "divider"}]}
                """#))
        let page = decoded.value
        #expect(page.header[0].id == "x")
        #expect(page.sections[0].widgets.map(\.id) == ["x#2", "x#2#2"])
        #expect(page.sections[1].widgets[0].id == "x#3")
        #expect(page.footer[0].id == "x#4")
        #expect(page.sections.map(\.id) == ["s", "s#2"])
        let renames = decoded.diagnostics.filter { $0.code == "duplicate_id" }
        #expect(
            renames.map(\.path.string).sorted() == [
                "/page/footer/0/id", "/page/sections/0/widgets/0/id", "/page/sections/0/widgets/1/id",
                "/page/sections/1/id", "/page/sections/1/widgets/0/id",
            ])
        #expect(renames.allSatisfy { $0.severity == .error })
        // Each rename names the first holder too, so an author sees both positions (issue 33).
        let footer = try #require(renames.first { $0.path.string == "/page/footer/0/id" })
        #expect(footer.message == #"id "x" is already used in this scope by /page/header/0; renamed to "x#4""#)
        let clash = try #require(renames.first { $0.path.string == "/page/sections/0/widgets/1/id" })
        #expect(clash.message.contains(#""x#2" is already used in this scope by /page/sections/0/widgets/0;"#))
    }

    @Test func childrenAreUniqueAmongSiblingsOnly() throws {
        let decoded = try decodePage(
            envelope(
                #"""
                {"id": "p", "sections": [{"id": "s", "widgets": [
                  {"id": "a1", "type": "accordion", "content": {"title": "A"}, "children": [
                    {"id": "row", "type": "divider"}, {"id": "row", "type": "divider"}]},
                  {"id": "a2", "type": "accordion", "content": {"title": "B"}, "children": [
                    {"id": "row", "type": "divider"}]}]}]}
                """#))
        let widgets = decoded.value.sections[0].widgets
        #expect(widgets[0].children.map(\.id) == ["row", "row#2"])
        #expect(widgets[1].children.map(\.id) == ["row"])
        #expect(decoded.diagnostics.map(\.path.string) == ["/page/sections/0/widgets/0/children/1/id"])
    }

    @Test func sameInputSameIDs() throws {
        let text = envelope(
            #"{"id": "p", "sections": [{"widgets": [{"type": "divider"}, {"type": "divider", "id": "divider@sections.0.widgets.0"}]}]}"#
        )
        let first = try decodePage(text).value
        let second = try decodePage(text).value
        #expect(first == second)
        #expect(
            first.sections[0].widgets.map(\.id) == ["divider@sections.0.widgets.0", "divider@sections.0.widgets.0#2"])
    }

    @Test func nonStringIDIsReplacedWithAWarning() throws {
        let decoded = try decodePage(
            envelope(#"{"id": "p", "sections": [{"id": "s", "widgets": [{"id": 7, "type": "divider"}]}]}"#))
        #expect(decoded.value.sections[0].widgets[0].id == "divider@sections.0.widgets.0")
        #expect(decoded.diagnostics.map(\.code) == ["invalid_id"])
        #expect(decoded.diagnostics.first?.severity == .warning)
    }

    @Test func nextPageChunksAreNormalizedRelativeToTheEnvelope() throws {
        let text = #"""
            {"schemaVersion": 1, "kind": "nextPage", "sections": [{"widgets": [{"type": "divider"}]}, {"id": "s", "widgets": []}],
             "pagination": {"hasMore": false}}
            """#
        let next = try PageDecoder().decodeNextPage(Array(text.utf8)).value
        #expect(next.sections.map(\.id) == ["section@sections.0", "s"])
        #expect(next.sections[0].widgets[0].id == "divider@sections.0.widgets.0")
    }
}
