import Testing

@testable import PageModel

/// Generated ids of content that arrives into a document after its first load (issue 18, the "Known gaps" of
/// docs/contract.md): `nextPage` chunks and `appendSections` / `prependSections` never collide with the page's own
/// generated ids, and rename diagnostics point into the response.
@Suite struct ArrivingIDTests {
    /// A page whose section and widgets have no ids: `section@sections.0`, `text@sections.0.widgets.0`.
    static let anonymousPage = envelope(
        #"""
        {"id": "feed", "sections": [{"widgets": [{"type": "text", "content": {"text": "one"}},
          {"type": "accordion", "content": {"title": "More"}, "children": [{"type": "text", "content": {"text": "a"}}]}]}],
         "pagination": {"hasMore": true, "postback": "c1"}}
        """#)

    static let anonymousChunk = Array(
        #"""
        {"schemaVersion": 1, "kind": "nextPage", "sections": [{"widgets": [{"type": "text", "content": {"text": "two"}},
          {"type": "accordion", "content": {"title": "Less"}, "children": [{"type": "text", "content": {"text": "b"}}]}]}],
         "pagination": {"hasMore": false}}
        """#.utf8)

    @Test func aChunkWithoutIDsGetsTheIDsOfTheWholePage() throws {
        let page = try decodePage(Self.anonymousPage).value
        let chunk = try PageDecoder().decodeNextPage(Self.anonymousChunk)
        var diagnostics = chunk.diagnostics

        let merged = page.appending(chunk.value, diagnostics: &diagnostics)

        #expect(merged.sections.map(\.id) == ["section@sections.0", "section@sections.1"])
        #expect(
            merged.sections[1].widgets.map(\.id) == ["text@sections.1.widgets.0", "accordion@sections.1.widgets.1"])
        #expect(merged.sections[1].widgets[1].children.map(\.id) == ["text@sections.1.widgets.1.children.0"])
        #expect(diagnostics.isEmpty)
        // The same content served in one piece yields the same ids.
        let whole = try decodePage(
            envelope(
                #"""
                {"id": "feed", "sections": [{"widgets": [{"type": "text", "content": {"text": "one"}},
                  {"type": "accordion", "content": {"title": "More"}, "children": [{"type": "text", "content": {"text": "a"}}]}]},
                  {"widgets": [{"type": "text", "content": {"text": "two"}},
                  {"type": "accordion", "content": {"title": "Less"}, "children": [{"type": "text", "content": {"text": "b"}}]}]}]}
                """#)
        ).value
        #expect(merged.sections == whole.sections)
    }

    @Test func aChunksGeneratedIDStillYieldsToABackendIDOnThePage() throws {
        let page = try decodePage(
            envelope(#"{"id": "p", "sections": [{"id": "section@sections.1", "widgets": [{"type": "divider"}]}]}"#)
        ).value
        let chunk = try PageDecoder().decodeNextPage(
            Array(#"{"schemaVersion": 1, "kind": "nextPage", "sections": [{"widgets": [{"type": "divider"}]}]}"#.utf8))
        var diagnostics: [Diagnostic] = []

        let merged = page.appending(chunk.value, diagnostics: &diagnostics)

        #expect(merged.sections.map(\.id) == ["section@sections.1", "section@sections.1#2"])
        #expect(diagnostics.map(\.code) == ["duplicate_id"])
        #expect(diagnostics.map(\.path.string) == ["/sections/0/id"])
    }

    @Test func diagnosticsOfARebasedWidgetNameItsDocumentID() throws {
        let page = try decodePage(Self.anonymousPage).value
        let chunk = try PageDecoder().decodeNextPage(
            Array(
                #"{"schemaVersion": 1, "kind": "nextPage", "sections": [{"widgets": [{"type": "text", "content": {"text": 7}}]}]}"#
                    .utf8))
        var diagnostics = chunk.diagnostics

        let merged = page.appending(chunk.value, diagnostics: &diagnostics)

        #expect(merged.sections[1].widgets.map(\.id) == ["text@sections.1.widgets.0"])
        #expect(diagnostics.map(\.widgetID) == ["text@sections.1.widgets.0"])
        #expect(diagnostics.map(\.path.string) == ["/sections/0/widgets/0/content/text"])
    }

    @Test func appendedAndPrependedSectionsWithoutIDsAreRootedAtTheResponse() throws {
        let page = try decodePage(Self.anonymousPage).value
        let response = try PageDecoder().decodeActionResponse(
            Array(
                #"""
                {"schemaVersion": 1, "kind": "actionResponse", "mutations": [
                  {"type": "appendSections", "sections": [{"widgets": [{"type": "text", "content": {"text": "end"}}]}]},
                  {"type": "prependSections", "sections": [{"widgets": [{"type": "text", "content": {"text": "top"}}]}]}]}
                """#.utf8))
        #expect(response.diagnostics.isEmpty)
        var diagnostics: [Diagnostic] = []

        var document = page
        for mutation in response.value.mutations {
            document = try document.applying(mutation, diagnostics: &diagnostics)
        }

        #expect(
            document.sections.map(\.id) == [
                "section@mutations.1.sections.0", "section@sections.0", "section@mutations.0.sections.0",
            ])
        #expect(document.sections[0].widgets.map(\.id) == ["text@mutations.1.sections.0.widgets.0"])
        #expect(document.sections[2].widgets.map(\.id) == ["text@mutations.0.sections.0.widgets.0"])
        #expect(diagnostics.isEmpty)
    }

    // MARK: The rest of the former "Known gaps"

    @Test func nullActionsMeanAbsent() throws {
        let decoded = try decodePage(
            envelope(
                #"{"id": "p", "sections": [{"id": "s", "widgets": [{"id": "t", "type": "text", "content": {"text": "x"}, "actions": null}]}]}"#
            ))
        #expect(decoded.value.sections[0].widgets[0].actions.isEmpty)
        #expect(decoded.diagnostics.isEmpty)
    }

    @Test func bottomSheetParametersThatAreNotAnObjectAreReported() throws {
        let decoded = try decodePage(
            envelope(
                #"""
                {"id": "p", "sections": [{"id": "s", "widgets": [{"id": "b", "type": "button", "content": {"title": "Size"},
                  "actions": {"tap": {"type": "open_bottom_sheet", "pageID": "size", "parameters": ["sku", "1"]}}}]}]}
                """#))
        #expect(
            decoded.value.sections[0].widgets[0].actions["tap"] == .openBottomSheet(pageID: "size", parameters: [:]))
        #expect(decoded.diagnostics.map(\.code) == ["invalid_action"])
        #expect(decoded.diagnostics.map(\.path.string) == ["/page/sections/0/widgets/0/actions/tap/parameters"])
    }

    @Test func replaceWidgetWithNullIDInheritsTheTargetID() throws {
        let decoded = try PageDecoder().decodeActionResponse(
            Array(
                #"""
                {"schemaVersion": 1, "kind": "actionResponse", "mutations": [
                  {"type": "replaceWidget", "id": "row1", "widget": {"id": null, "type": "divider"}}]}
                """#.utf8))
        #expect(decoded.value.mutations == [.replaceWidget(id: "row1", widget: Widget(id: "row1", type: "divider"))])
        #expect(decoded.diagnostics.isEmpty)
    }
}
