import HTTPCore
import PageModel
import Synchronization

/// A catalog plus the encoded bytes it serves, swapped as a whole on reload so no request sees half an update.
///
/// Every envelope is encoded and gzipped once per content version: first loads without parameters and action
/// responses when the snapshot is built, next-page chunks and parameterised first loads lazily on first request,
/// then from a bounded cache.
final class CatalogSnapshot: Sendable {
    let catalog: PageCatalog
    let cursors: CursorCodec
    /// First-load envelopes without parameters, by page id.
    let initialBodies: [String: PreparedBody]
    /// Action response envelopes, by action name.
    let actionBodies: [String: PreparedBody]
    /// Lazily encoded chunks and parameterised first loads.
    let cache = Mutex<[CacheKey: PreparedBody]>([:])
    /// Entries kept before the lazy cache is cleared (then it refills from use).
    static let cacheLimit = 4_096

    struct CacheKey: Hashable {
        var pageID: String
        /// -1 for a first load, else the chunk's first section.
        var position: Int
        var parameters: [String: String]
        /// Client variant (Capabilities/CatalogSnapshot+Resolution.swift): capability profile key and locale.
        var profile: String? = nil
        var locale: String? = nil
    }

    init(catalog: PageCatalog, cursors: CursorCodec) {
        self.catalog = catalog
        self.cursors = cursors
        var initial: [String: PreparedBody] = [:]
        for (id, page) in catalog.pages {
            initial[id] = Self.firstLoad(page, parameters: [:], variant: .plain, cursors: cursors)
        }
        initialBodies = initial
        var actions: [String: PreparedBody] = [:]
        for (name, action) in catalog.actions { actions[name] = Self.prepare(.actionResponse(action.response)) }
        actionBodies = actions
    }

    static func prepare(_ envelope: Envelope) -> PreparedBody {
        PreparedBody(envelope.encoded(), contentType: "application/json", level: 6)
    }

    static func initialDocument(_ page: CatalogPage, parameters: [String: String], cursors: CursorCodec) -> PageModel {
        page.initialDocument { position in
            cursors.encode(
                Cursor(pageID: page.page.id, version: page.version, position: position, parameters: parameters))
        }
    }

    /// The first-load envelope of `page` for `parameters`.
    func initialBody(_ page: CatalogPage, parameters: [String: String]) -> PreparedBody {
        if parameters.isEmpty, let body = initialBodies[page.page.id] { return body }
        return cached(CacheKey(pageID: page.page.id, position: -1, parameters: parameters)) {
            Self.firstLoad(page, parameters: parameters, variant: .plain, cursors: cursors)
        }
    }

    /// The next-page envelope a verified cursor points at, or `nil` when its position is out of range.
    func chunkBody(_ page: CatalogPage, cursor: Cursor) -> PreparedBody? {
        if cursor.profile != nil || cursor.locale != nil || page.strings != nil {
            return resolvedChunkBody(page, cursor: cursor)
        }
        let key = CacheKey(pageID: page.page.id, position: cursor.position, parameters: cursor.parameters)
        if let body = cache.withLock({ $0[key] }) { return body }
        let chunk = page.chunk(at: cursor.position) { position in
            var next = cursor
            next.position = position
            return cursors.encode(next)
        }
        guard let chunk else { return nil }
        return cached(key) { Self.prepare(.nextPage(chunk)) }
    }

    func cached(_ key: CacheKey, _ make: () -> PreparedBody) -> PreparedBody {
        if let body = cache.withLock({ $0[key] }) { return body }
        let body = make()
        cache.withLock { entries in
            if entries.count >= Self.cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[key] = body
        }
        return body
    }
}
