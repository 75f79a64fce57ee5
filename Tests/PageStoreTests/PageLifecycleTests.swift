import PageModel
import PageStore
import Testing

/// The pure state machine, driven directly: events in, effects out.
@Suite struct PageLifecycleTests {
    static let page = PageModel(
        id: "p", sections: [Section(id: "s", widgets: [Widget(id: "w", type: "divider")])],
        pagination: Pagination(hasMore: true, postback: "c1"))

    @Test func loadThenRefreshEffects() {
        var lifecycle = PageLifecycle()
        #expect(lifecycle.loadRequested() == [.fetchDocument(.initial, token: 1)])
        let accepted1 = lifecycle.fetchSucceeded(token: 1, Decoded(Self.page))
        #expect(accepted1 == [])
        #expect(lifecycle.state == .loaded(Self.page))

        #expect(lifecycle.refreshRequested() == [.resetWidgetState, .fetchDocument(.refresh, token: 2)])
        #expect(lifecycle.state == .loaded(Self.page))
        #expect(lifecycle.documentStatus == RequestStatus(kind: .refresh, isLoading: true, hasSucceeded: true))
    }

    @Test func aNewerLoadSupersedesTheOlderToken() {
        var lifecycle = PageLifecycle()
        _ = lifecycle.loadRequested()
        #expect(
            lifecycle.refreshRequested() == [
                .resetWidgetState, .cancelDocumentFetch, .fetchDocument(.refresh, token: 2),
            ])
        let accepted2 = lifecycle.fetchSucceeded(token: 1, Decoded(Self.page))
        #expect(accepted2 == nil)
        let accepted3 = lifecycle.fetchFailed(token: 1, Fixtures.serverError)
        #expect(!accepted3)
        #expect(lifecycle.state == .loading)
    }

    @Test func nextPageNeedsLoadedHasMoreAndNoneInFlight() {
        var lifecycle = PageLifecycle()
        #expect(lifecycle.nextPageRequested().isEmpty)  // still loading
        _ = lifecycle.loadRequested()
        lifecycle.fetchSucceeded(token: 1, Decoded(Self.page))
        #expect(lifecycle.nextPageRequested() == [.fetchNextPage(postback: "c1", token: 2)])
        #expect(lifecycle.nextPageRequested().isEmpty)  // already loading more
        let accepted4 = lifecycle.nextPageFailed(token: 2, Fixtures.serverError)
        #expect(accepted4)
        #expect(lifecycle.state == .loaded(Self.page))
        #expect(lifecycle.nextPageRequested() == [.fetchNextPage(postback: "c1", token: 3)])
        let end = NextPage(sections: [], pagination: .end)
        let accepted5 = lifecycle.nextPageSucceeded(token: 3, Decoded(end))
        #expect(accepted5)
        #expect(lifecycle.nextPageRequested().isEmpty)  // no more
    }

    @Test func loadCancelsPaginationInFlight() {
        var lifecycle = PageLifecycle()
        _ = lifecycle.loadRequested()
        lifecycle.fetchSucceeded(token: 1, Decoded(Self.page))
        _ = lifecycle.nextPageRequested()
        #expect(
            lifecycle.refreshRequested() == [.resetWidgetState, .cancelPagination, .fetchDocument(.refresh, token: 2)])
        #expect(!lifecycle.isLoadingMore)
        let more = NextPage(sections: [Section(id: "late")], pagination: .end)
        let accepted6 = lifecycle.nextPageSucceeded(token: 1, Decoded(more))
        #expect(!accepted6)
    }

    /// Issue 18, defect 1, as pure transitions: a next page requested during a refresh uses the shown
    /// document's cursor; when the refresh lands first, that next page is superseded.
    @Test func aRefreshThatLandsSupersedesANextPageRequestedDuringIt() {
        var lifecycle = PageLifecycle()
        _ = lifecycle.loadRequested()
        lifecycle.fetchSucceeded(token: 1, Decoded(Self.page))
        _ = lifecycle.refreshRequested()
        #expect(lifecycle.nextPageRequested() == [.fetchNextPage(postback: "c1", token: 3)])

        let refreshed = PageModel(
            id: "p", sections: [Section(id: "fresh", widgets: [Widget(id: "x", type: "divider")])])
        #expect(lifecycle.fetchSucceeded(token: 2, Decoded(refreshed)) == [.cancelPagination])
        #expect(!lifecycle.isLoadingMore)
        let stale = NextPage(sections: [Section(id: "stale")], pagination: .end)
        let appended = lifecycle.nextPageSucceeded(token: 3, Decoded(stale))
        #expect(!appended)
        #expect(lifecycle.page == refreshed)
    }

    @Test func nextPageUsesLoadedPageOnly() {
        var lifecycle = PageLifecycle()
        _ = lifecycle.loadRequested()
        lifecycle.fetchSucceeded(token: 1, Decoded(Self.page))
        _ = lifecycle.loadRequested()  // .loading: the last page has more, but it is not .loaded
        #expect(lifecycle.state.loadedPage == nil)
        #expect(lifecycle.page == Self.page)
        #expect(lifecycle.nextPageRequested().isEmpty)
    }

    @Test func mutationsNeedADocumentExceptReplacePage() throws {
        var lifecycle = PageLifecycle()
        var withoutDocument = lifecycle
        #expect(throws: ContractError.self) { _ = try withoutDocument.applyRequested([.removeWidget(id: "w")]) }
        #expect(withoutDocument == lifecycle)
        _ = lifecycle.loadRequested()
        #expect(try lifecycle.applyRequested([.replacePage(Self.page)]) == [.cancelDocumentFetch])
        #expect(lifecycle.state == .loaded(Self.page))
        _ = try lifecycle.applyRequested([.removeWidget(id: "w")])
        #expect(lifecycle.state == .empty)
    }

    @Test func replacePageDropsTheFindingsOfWhatItReplaced() throws {
        var lifecycle = PageLifecycle()
        _ = lifecycle.loadRequested()
        lifecycle.fetchSucceeded(token: 1, Decoded(Self.page, [.warning("old", "/page", "about the old document")]))
        let beforeReplacement = Diagnostic.error("invalid_content", "/mutations/0/sections/0/widgets/0", "gone")
        let inReplacement = Diagnostic.error("invalid_content", "/mutations/1/page/sections/0/widgets/0", "shown")
        let inEffects = Diagnostic.error("invalid_action", "/effects/0/message", "an effect")

        _ = try lifecycle.applyRequested(
            [.appendSections([Section(id: "tail")]), .replacePage(Self.page)],
            responseDiagnostics: [beforeReplacement, inReplacement, inEffects])

        #expect(lifecycle.diagnostics == [inReplacement, inEffects])
        #expect(lifecycle.arrivedDiagnostics == [beforeReplacement, inReplacement, inEffects])
    }

    @Test func aResponseWithoutMutationsReportsItsOwnFindingsEvenWithoutADocument() throws {
        var lifecycle = PageLifecycle()
        _ = lifecycle.loadRequested()
        lifecycle.fetchSucceeded(token: 1, Decoded(Self.page, [.warning("old", "/page", "earlier batch")]))
        _ = lifecycle.loadRequested()  // .loading: no document shown
        let inEffects = Diagnostic.error("invalid_action", "/effects/0/message", "an effect")

        let effects = try lifecycle.applyRequested([], responseDiagnostics: [inEffects])

        #expect(effects.isEmpty)
        #expect(lifecycle.arrivedDiagnostics == [inEffects])
        #expect(lifecycle.diagnostics.map(\.code) == ["old"])  // nothing shown changed
    }

    @Test func failedRefreshKeepsTheDocument() {
        var lifecycle = PageLifecycle()
        _ = lifecycle.loadRequested()
        lifecycle.fetchSucceeded(token: 1, Decoded(Self.page, [.warning("w", "/", "note")]))
        _ = lifecycle.refreshRequested()
        lifecycle.fetchFailed(token: 2, Fixtures.serverError)
        #expect(lifecycle.state == .loaded(Self.page))
        #expect(lifecycle.page == Self.page)
        #expect(lifecycle.diagnostics.map(\.code) == ["w"])  // replaced only after a success
        #expect(lifecycle.documentStatus.error == Fixtures.serverError)
    }
}
