import PageModel
import PageStore
import Testing

/// "Diagnostics are replaced as a batch after success … so the overlay does not show a mix of two responses."
@Suite @MainActor struct PageStoreDiagnosticsTests {
    let loader = ScriptedPageLoader()

    static let cleanPage = Fixtures.page(
        #"{"id": "cart", "sections": [{"id": "items", "widgets": [{"id": "ok", "type": "text", "content": {"text": "fine"}}]}]}"#
    )

    static let replacePageResponse = Fixtures.actionResponse(
        mutations: #"""
            [{"type": "replacePage", "page": {"id": "cart", "sections": [{"id": "items", "widgets": [
              {"id": "ok", "type": "text", "content": {"text": "fine"}},
              {"id": "worse", "type": "button", "content": {}}]}]}}]
            """#)

    func loadedWithBadContent() async -> PageStore {
        await loader.respond(with: Fixtures.badContent, for: .initial)
        let store = PageStore(pageID: "cart", loader: loader)
        await store.loadInitial()
        return store
    }

    @Test func refreshToACleanPageEmptiesTheDiagnostics() async throws {
        let store = await loadedWithBadContent()
        let before = store.peek(\.diagnostics)
        #expect(before.map(\.widgetID) == ["bad"])
        await loader.respond(with: Self.cleanPage, for: .refresh)

        await store.refresh()

        let diagnostics = store.peek(\.diagnostics)
        #expect(diagnostics.isEmpty)
    }

    /// Issue 18, defect 2: an api `replacePage` is a new document; the old document's findings go with it.
    @Test func apiReplacePageReplacesTheDiagnostics() async throws {
        let store = await loadedWithBadContent()
        await loader.respond(with: Self.replacePageResponse, for: .action)

        try await store.performAction(ActionRequest(name: "reload", pageID: "cart", widgetID: "ok", event: "tap"))

        let diagnostics = store.peek(\.diagnostics)
        #expect(
            diagnostics == [
                .error(
                    "invalid_content", "/mutations/0/page/sections/0/widgets/1/content/title", widgetID: "worse",
                    "button requires content field \"title\" (string)")
            ])
    }

    @Test func applyingReplacePageLocallyClearsTheDiagnostics() async throws {
        let store = await loadedWithBadContent()

        try store.apply(.replacePage(try Fixtures.decoded(Self.cleanPage)))

        let diagnostics = store.peek(\.diagnostics)
        #expect(diagnostics.isEmpty)
    }

    @Test(arguments: [
        PageMutation.replaceWidget(id: "bad", widget: Widget(id: "bad", type: "text", content: ["text": "now"])),
        .removeWidget(id: "bad"),
    ])
    func replacingOrRemovingAWidgetDropsItsFindings(_ mutation: PageMutation) async throws {
        let store = await loadedWithBadContent()

        try store.apply(mutation)

        let diagnostics = store.peek(\.diagnostics)
        #expect(diagnostics.isEmpty)
    }

    /// Rename findings of an action response point into the response (`/mutations/0/sections/0/id`).
    @Test func renameFindingsOfAnActionPointIntoTheResponse() async throws {
        await loader.respond(with: Fixtures.cart(), for: .initial)
        await loader.respond(
            with: Fixtures.actionResponse(
                mutations: #"""
                    [{"type": "removeWidget", "id": "title"},
                     {"type": "appendSections", "sections": [{"id": "items", "widgets": [
                       {"id": "checkout", "type": "text", "content": {"text": "again"}}]}]}]
                    """#), for: .action)
        let store = PageStore(pageID: "cart", loader: loader)
        await store.loadInitial()

        try await store.performAction(ActionRequest(name: "more", pageID: "cart", widgetID: "qty", event: "tap"))

        let diagnostics = store.peek(\.diagnostics)
        #expect(diagnostics.map(\.code) == ["duplicate_id", "duplicate_id"])
        #expect(
            diagnostics.map(\.path.string) == ["/mutations/1/sections/0/id", "/mutations/1/sections/0/widgets/0/id"])
        let page = try #require(store.peek(\.page))
        #expect(page.sections.map(\.id) == ["items", "items#2"])
    }

    /// Hosts and the verifier keep their own record: every accepted batch is reported once, in order; a
    /// superseded response reports nothing.
    @Test func everyAcceptedBatchIsReportedOnceInOrder() async throws {
        await loader.respond(with: Fixtures.badContent, for: .initial)
        let older = await loader.suspend(for: .refresh)
        await loader.respond(with: Self.cleanPage, for: .refresh)
        await loader.respond(with: Self.replacePageResponse, for: .action)
        let store = PageStore(pageID: "cart", loader: loader)
        var batches: [[String]] = []
        store.diagnosticsDidArrive = { batch in batches.append(batch.map { "\($0.code) \($0.path.string)" }) }

        await store.loadInitial()
        let superseded = Task { await store.refresh() }
        try await older.arrived()
        await store.refresh()
        older.respond(with: Fixtures.badContent)
        try await finish(superseded)
        try await store.performAction(ActionRequest(name: "reload", pageID: "cart", widgetID: "ok", event: "tap"))

        #expect(
            batches == [
                ["invalid_content /page/sections/0/widgets/1/content/text"], [],
                ["invalid_content /mutations/0/page/sections/0/widgets/1/content/title"],
            ])
    }
}
