import Testing

@testable import PageModel

@Suite struct MutationTests {
    func text(_ id: String, _ value: String = "x") -> Widget {
        Widget(id: id, type: "text", content: ["text": .string(value)])
    }

    var cart: PageModel {
        PageModel(
            id: "cart", header: [text("title")],
            sections: [
                Section(id: "items", widgets: [text("row1"), text("row2")]),
                Section(
                    id: "more",
                    widgets: [Widget(id: "acc", type: "accordion", content: ["title": "A"], children: [text("inner")])]),
            ],
            footer: [text("total")], pagination: Pagination(hasMore: true, postback: "c1"))
    }

    @Test func replacePageReplacesEverything() throws {
        let replacement = PageModel(id: "done", sections: [Section(id: "s", widgets: [text("ok")])])
        #expect(try cart.applying(.replacePage(replacement)) == replacement)
    }

    @Test func appendAndPrependSectionsKeepPaginationAndOrder() throws {
        let appended = try cart.applying(.appendSections([Section(id: "new", widgets: [text("n1")])]))
        #expect(appended.sections.map(\.id) == ["items", "more", "new"])
        #expect(appended.pagination == cart.pagination)
        let prepended = try cart.applying(.prependSections([Section(id: "top", widgets: [text("t1")])]))
        #expect(prepended.sections.map(\.id) == ["top", "items", "more"])
    }

    @Test func appendedCollisionsFollowTheRenamingRule() throws {
        var diagnostics: [Diagnostic] = []
        let page = try cart.applying(
            .appendSections([Section(id: "items", widgets: [text("row1"), text("total"), text("fresh")])]),
            diagnostics: &diagnostics)
        #expect(page.sections.map(\.id) == ["items", "more", "items#2"])
        #expect(page.sections[2].widgets.map(\.id) == ["row1#2", "total#2", "fresh"])
        #expect(diagnostics.map(\.code) == ["duplicate_id", "duplicate_id", "duplicate_id"])
        #expect(
            diagnostics.map(\.path.string) == [
                "/sections/0/id", "/sections/0/widgets/0/id", "/sections/0/widgets/1/id",
            ])
    }

    @Test func replaceWidgetFindsTopLevelAndNestedWidgets() throws {
        let topLevel = try cart.applying(.replaceWidget(id: "row2", widget: text("row2", "changed")))
        #expect(topLevel.sections[0].widgets[1].content == ["text": "changed"])
        let nested = try cart.applying(.replaceWidget(id: "inner", widget: text("inner", "deep")))
        #expect(nested.sections[1].widgets[0].children[0].content == ["text": "deep"])
        let footer = try cart.applying(.replaceWidget(id: "total", widget: text("total", "€9")))
        #expect(footer.footer[0].content == ["text": "€9"])
        #expect(footer.widget(withID: "total")?.content == ["text": "€9"])
    }

    @Test func replaceWidgetWithACollidingNewIDIsRenamed() throws {
        var diagnostics: [Diagnostic] = []
        let page = try cart.applying(.replaceWidget(id: "row2", widget: text("row1")), diagnostics: &diagnostics)
        #expect(page.sections[0].widgets.map(\.id) == ["row1", "row1#2"])
        #expect(diagnostics.map(\.code) == ["duplicate_id"])
        let renamedToItself = try cart.applying(.replaceWidget(id: "row2", widget: text("row2-new")))
        #expect(renamedToItself.sections[0].widgets.map(\.id) == ["row1", "row2-new"])
    }

    @Test func removeWidgetRemovesTopLevelAndNested() throws {
        #expect(try cart.applying(.removeWidget(id: "title")).header.isEmpty)
        #expect(try cart.applying(.removeWidget(id: "inner")).sections[1].widgets[0].children.isEmpty)
        #expect(try cart.applying(.removeWidget(id: "row1")).sections[0].widgets.map(\.id) == ["row2"])
    }

    @Test(arguments: [
        PageMutation.removeWidget(id: "ghost"), .replaceWidget(id: "ghost", widget: Widget(id: "g", type: "divider")),
    ])
    func missingTargetIsAnErrorNotANoOp(_ mutation: PageMutation) {
        let error = #expect(throws: ContractError.self) { try cart.applying(mutation) }
        #expect(error?.code == "mutation_target_not_found")
        #expect(error?.message.contains("\"ghost\"") == true)
    }

    @Test func applyingIsPure() throws {
        let page = cart
        _ = try page.applying(.removeWidget(id: "row1"))
        #expect(page == cart)
    }

    @Test func appendingANextPageChunkTakesItsPagination() {
        var diagnostics: [Diagnostic] = []
        let next = NextPage(sections: [Section(id: "items", widgets: [text("row9")])], pagination: .end)
        let page = cart.appending(next, diagnostics: &diagnostics)
        #expect(page.sections.map(\.id) == ["items", "more", "items#2"])
        #expect(page.pagination == .end)
    }

    @Test func mutationsRoundTripThroughTheWire() throws {
        let response = Envelope.actionResponse(
            ActionResponse(
                mutations: [
                    .replacePage(PageModel(id: "p", sections: [])),
                    .appendSections([Section(id: "a", widgets: [text("w")])]),
                    .prependSections([Section(id: "b")]), .replaceWidget(id: "w", widget: text("w", "new")),
                    .removeWidget(id: "w"),
                ], effects: [.toast(message: "Done")]))
        let decoded = try PageDecoder().decodeEnvelope(response.encoded())
        #expect(decoded.value == response)
        #expect(decoded.diagnostics.isEmpty)
    }

    @Test func replaceWidgetWithoutIDTakesTheTargetID() throws {
        let text = #"""
            {"schemaVersion": 1, "kind": "actionResponse",
             "mutations": [{"type": "replaceWidget", "id": "row1", "widget": {"type": "text", "content": {"text": "n"}}},
                           {"type": "teleport", "to": "x"}]}
            """#
        let decoded = try PageDecoder().decodeActionResponse(Array(text.utf8))
        #expect(decoded.value.mutations == [.replaceWidget(id: "row1", widget: self.text("row1", "n"))])
        #expect(decoded.diagnostics.map(\.code) == ["unknown_mutation_type"])
    }
}
