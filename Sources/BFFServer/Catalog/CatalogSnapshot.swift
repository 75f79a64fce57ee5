import HTTPCore
import PageModel

/// A catalog plus what is derived from it once, swapped as a whole on reload so no request sees half an update:
/// the first-load bodies of every page for clients that declare nothing (the warm tier of the representation
/// cache), the canned action answers, and the action targets of each page (computed on first use).
final class CatalogSnapshot: Sendable {
    let catalog: PageCatalog
    /// Plain first loads (no parameters, no client variant), by content version.
    let firstLoads: [String: PreparedBody]
    /// Action response envelopes, by action name.
    let actionBodies: [String: PreparedBody]
    /// The first error of each file that has one, by file (relative to the pages directory): a page served from
    /// such a file is its last good version; a page id whose file is here but not in ``catalog`` never loaded.
    let brokenFiles: [String: FileDiagnostic]
    /// The widgets and events an action request may name, by page content version.
    let targets = BoundedCache<String, ActionTargets>(capacity: 1_024)

    /// - Parameter previous: the snapshot this one replaces: the first-load bodies of pages whose content version
    ///   is unchanged are taken from it instead of being encoded and compressed again (same version, same cursor
    ///   codec, same bytes), and so are the action targets whose followed actions answer the same.
    init(catalog: PageCatalog, cursors: CursorCodec, reusing previous: CatalogSnapshot? = nil) {
        self.catalog = catalog
        var firstLoads: [String: PreparedBody] = [:]
        for page in catalog.pages.values {
            if let body = previous?.firstLoads[page.version] {
                firstLoads[page.version] = body
                continue
            }
            let key = RepresentationKey.firstLoad(page, parameters: [:], variant: .plain)
            firstLoads[page.version] = Representation.make(
                page, key, variant: .plain, cursors: cursors, lazyGzip: false)
        }
        self.firstLoads = firstLoads
        var actions: [String: PreparedBody] = [:]
        for (name, action) in catalog.actions where action.rules.isEmpty {
            actions[name] = Representation.prepare(.actionResponse(action.response))
        }
        actionBodies = actions
        var broken: [String: FileDiagnostic] = [:]
        for diagnostic in catalog.diagnostics where diagnostic.diagnostic.severity == .error {
            if broken[diagnostic.file] == nil { broken[diagnostic.file] = diagnostic }
        }
        brokenFiles = broken
        for (version, targets) in previous?.targets.entries ?? [] where targets.isCurrent(for: catalog.actions) {
            self.targets.set(version, targets)
        }
    }

    /// The page `pageID` of the catalog (an id the caller checked with ``PageID/isValid(_:)``: the route, the
    /// cursor and the action request do).
    /// - Throws: 404 `page_not_found` with a near-miss hint.
    func page(_ pageID: String) throws(ProblemDetails) -> CatalogPage {
        guard let page = catalog.pages[pageID] else {
            throw .pageNotFound(pageID, suggestion: NearMiss.closest(to: pageID, among: catalog.pages.keys))
        }
        return page
    }

    /// The action targets of `page` (any source: file page, scenario, session copy, provider page).
    func actionTargets(of page: CatalogPage) -> ActionTargets {
        targets.value(for: page.version) { ActionTargets(page: page.page, actions: catalog.actions) }!
    }
}
