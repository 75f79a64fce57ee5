import PageModel

extension PageCatalog {
    /// The result of ``keepingLastGood(from:keepingDeleted:)``.
    public struct LastGoodMerge: Sendable {
        public var catalog: PageCatalog
        /// Files with errors whose last good version is served.
        public var kept: [String]
        /// Files gone from the directory whose page is still served (deletion not yet confirmed).
        public var pendingDeletion: [String]
    }

    /// This (freshly loaded) catalog, with every page and scenario whose file now has an error replaced by its
    /// last good version from `previous`, together with the api actions that page declared. Pure.
    ///
    /// - Parameter keepingDeleted: also keep pages and scenarios whose file is gone (an editor saving by delete and
    ///   recreate); the caller confirms the deletion with a later merge that passes `false`.
    /// - Returns: the merged catalog, the files kept at their last good version and the pending deletions. An
    ///   unreadable directory keeps everything.
    public func keepingLastGood(from previous: PageCatalog, keepingDeleted: Bool = false) -> LastGoodMerge {
        var merged = self
        if diagnostics.contains(where: { $0.diagnostic.code == "missing_directory" }) {
            merged.pages = previous.pages
            merged.actions = previous.actions
            merged.scenarios = previous.scenarios
            merged.data = previous.data
            merged.sources = previous.sources
            return LastGoodMerge(catalog: merged, kept: previous.pages.values.map(\.file).sorted(), pendingDeletion: [])
        }
        var kept: [String] = []
        var pending: [String] = []
        let broken = Set(diagnostics.filter { $0.diagnostic.severity == .error }.map(\.file))
        let present = Set(diagnostics.map(\.file)).union(pages.values.map(\.file)).union(
            scenarios.values.flatMap { $0.values.map(\.file) })
        func keepPage(_ pageID: String) -> Bool {
            guard merged.pages[pageID] == nil, let old = previous.pages[pageID] else { return false }
            merged.pages[pageID] = old
            for (name, action) in previous.actions where action.pageID == pageID && merged.actions[name] == nil {
                merged.actions[name] = action
            }
            return true
        }
        func keepScenario(_ pageID: String, _ name: String) -> Bool {
            guard merged.scenarios[pageID]?[name] == nil, let old = previous.scenarios[pageID]?[name] else {
                return false
            }
            merged.scenarios[pageID, default: [:]][name] = old
            return true
        }
        for file in broken.sorted() {
            if let name = file.dropping(prefix: DataDocuments.folder + "/"), name.hasSuffix(".json") {
                // DataDocuments.load kept the last good document.
                if merged.data.documents[String(name.dropLast(5))] != nil { kept.append(file) }
            } else if let (pageID, scenario) = CatalogScenario.parse(fileName: file) {
                if keepScenario(pageID, scenario) { kept.append(file) }
            } else if file.hasSuffix(".json"), keepPage(String(file.dropLast(5))) {
                kept.append(file)
            }
        }
        if keepingDeleted {
            for (pageID, page) in previous.pages.sorted(by: { $0.key < $1.key })
            where !page.file.isEmpty && !present.contains(page.file) && keepPage(pageID) {
                pending.append(page.file)
            }
            for (pageID, variants) in previous.scenarios.sorted(by: { $0.key < $1.key }) {
                for (name, scenario) in variants.sorted(by: { $0.key < $1.key })
                where !present.contains(scenario.file) && keepScenario(pageID, name) {
                    pending.append(scenario.file)
                }
            }
        }
        return LastGoodMerge(catalog: merged, kept: kept, pendingDeletion: pending)
    }
}
