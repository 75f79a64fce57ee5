import PageModel
import Synchronization

/// Pages and action answers a UI test puts while the server runs (`/__admin/stubs`, docs/mock.md "Runtime stubs"),
/// for one session or for every request; checked like page files before they are kept, and forgotten by a reset.
/// A session's stub comes before the global one of the same name; both come before the page files.
final class MockStubs: Sendable {
    /// A stub's name and the session it is for (`nil`: every request).
    struct Key: Hashable, Sendable, Comparable {
        var name: String
        var session: String?

        static func < (left: Key, right: Key) -> Bool {
            (left.name, left.session ?? "") < (right.name, right.session ?? "")
        }
    }

    private struct State {
        var pages: [Key: CatalogPage] = [:]
        /// The `actionResponse` envelope each stubbed action answers, as encoded once.
        var actions: [Key: [UInt8]] = [:]
        /// Data documents (`data/<name>.json`) put instead of the files'.
        var data: [Key: JSONValue] = [:]
    }

    private let state = Mutex(State())

    /// The stub page `pageID` for `session` (its own, else the global one).
    func page(_ pageID: String, session: String?) -> CatalogPage? {
        state.withLock { state in
            session.flatMap { state.pages[Key(name: pageID, session: $0)] } ?? state.pages[Key(name: pageID)]
        }
    }

    /// The stub answer of action `name` for `session` (its own, else the global one).
    func action(_ name: String, session: String?) -> [UInt8]? {
        state.withLock { state in
            session.flatMap { state.actions[Key(name: name, session: $0)] } ?? state.actions[Key(name: name)]
        }
    }

    /// Every stub page a request of `session` could hold as `pageID` (for checking an action request's widget).
    func pages(_ pageID: String, session: String?) -> [CatalogPage] {
        state.withLock { state in
            [session.flatMap { state.pages[Key(name: pageID, session: $0)] }, state.pages[Key(name: pageID)]]
                .compactMap { $0 }
        }
    }

    func setPage(_ page: CatalogPage?, _ key: Key) { state.withLock { $0.pages[key] = page } }

    func setAction(_ envelope: [UInt8]?, _ key: Key) { state.withLock { $0.actions[key] = envelope } }

    func setData(_ document: JSONValue?, _ key: Key) { state.withLock { $0.data[key] = document } }

    /// The data documents put for every request, by name (a reload reads them instead of the files).
    var globalData: [String: JSONValue] {
        state.withLock { state in
            Dictionary(
                uniqueKeysWithValues: state.data.filter { $0.key.session == nil }.map { ($0.key.name, $0.value) })
        }
    }

    /// The names of the data documents put for each session.
    var dataNamesBySession: [String: Set<String>] {
        state.withLock { state in
            var names: [String: Set<String>] = [:]
            for key in state.data.keys { if let session = key.session { names[session, default: []].insert(key.name) } }
            return names
        }
    }

    /// The data documents put for `session`, by name.
    func data(session: String) -> [String: JSONValue] {
        state.withLock { state in
            Dictionary(
                uniqueKeysWithValues: state.data.filter { $0.key.session == session }.map { ($0.key.name, $0.value) })
        }
    }

    /// Names of every stubbed action (any session), for the check of a stub page's references.
    var actionNames: Set<String> { state.withLock { Set($0.actions.keys.map(\.name)) } }

    /// Ids of every stubbed page (any session).
    var pageIDs: Set<String> { state.withLock { Set($0.pages.keys.map(\.name)) } }

    /// The stubs, sorted: pages, actions and data documents.
    var keys: (pages: [Key], actions: [Key], data: [Key]) {
        state.withLock { ($0.pages.keys.sorted(), $0.actions.keys.sorted(), $0.data.keys.sorted()) }
    }

    /// Forgets every stub (`session` `nil`), or one session's.
    /// Forgets every stub, or those of `session`.
    /// - Returns: whether a data document put for every request was forgotten (the pages are to be loaded again).
    @discardableResult
    func removeAll(session: String? = nil) -> Bool {
        state.withLock { state in
            guard let session else {
                let hadGlobalData = state.data.keys.contains { $0.session == nil }
                state = State()
                return hadGlobalData
            }
            state.pages = state.pages.filter { $0.key.session != session }
            state.actions = state.actions.filter { $0.key.session != session }
            state.data = state.data.filter { $0.key.session != session }
            return false
        }
    }
}
