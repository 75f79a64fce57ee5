import PageModel
import PageStore

extension PageCrawl {
    /// `refresh()` must reset widget state and bring the same document as a fresh load in a new store.
    func checkRefresh(_ store: PageStore) async {
        begin("lifecycle")
        let refreshRequest = PageRequest(pageID: target.pageID, parameters: target.parameters, kind: .refresh)
        let requestText = loader.describe(refreshRequest) + " (Cache-Control: no-cache)"
        let probeWidget = store.peek(\.page)?.firstTopLevelWidget
        if let probeWidget { store.stateStore.set(Self.probeValue, widgetID: probeWidget.id, key: Self.probeKey) }
        await store.refresh()
        if let error = store.peek(\.status.error) {
            record(ViolationCode.pageFailed, "lifecycle", request: requestText, message: "refresh failed: \(error)")
            return
        }
        if let probeWidget,
            let kept = store.stateStore.peek(widgetID: probeWidget.id, key: Self.probeKey, as: String.self)
        {
            record(
                ViolationCode.widgetStateKeptOnRefresh, "lifecycle", request: requestText,
                message: "state of widget \"\(probeWidget.id)\" survived refresh()", expected: "(absent)",
                actual: kept)
        }
        let refreshed = store.peek(\.page)
        let fresh = PageStore(pageID: target.pageID, parameters: target.parameters, loader: loader)
        await fresh.loadInitial()
        let freshState = fresh.peek(\.state)
        if case .failed(let message) = freshState {
            record(
                ViolationCode.pageFailed, "lifecycle", request: loader.describe(initialRequest),
                message: "a second, fresh load failed: \(message)")
            return
        }
        guard let refreshed, let loaded = fresh.peek(\.page) else { return }
        let expected = loaded.withoutPostbacks
        let actual = refreshed.withoutPostbacks
        guard expected != actual else { return }
        let differences = JSONDiff.differences(expected: expected.json, actual: actual.json)
        let first = differences.first
        record(
            ViolationCode.refreshDiffersFromFreshLoad, "lifecycle", request: requestText,
            path: JSONPointer(string: "/page" + (first?.path.string ?? "")),
            message: "the document after refresh() differs from a fresh load (\(differences.count) differences"
                + "\(differences.count >= 10 ? " or more" : ""); expected = fresh load)",
            expected: first?.expected, actual: first?.actual)
    }
}
