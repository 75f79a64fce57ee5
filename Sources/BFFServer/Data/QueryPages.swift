import PageModel
import Synchronization

/// The versions of a page made from data for the query parameters its templates read (`filterBy`, `sortable`:
/// pages/README.md § Pages from data): `orders?status=processing&sort=-date` is made once for those values, when
/// first asked for, and kept (the most recently used `capacity` of them) with its own version, ETag, cursors and
/// cached bytes. A request without any of the parameters gets the page as loaded.
///
/// What a request can make is bounded by the data, not by the request: a filter value no item has and a sort key
/// the template does not offer are all one page (no match; the default order), so random values cost one make, not
/// one each, and a page that cannot be made is remembered as such.
final class QueryPages: Sendable {
    /// The query parameters the page reads.
    let parameters: Set<String>
    /// Per `filterBy` parameter, the values the items have (as text).
    let filterValues: [String: Set<String>]
    /// The `sortable` keys (`?sort=key` or `?sort=-key`).
    let sortKeys: Set<String>
    let generator: PageGenerator
    let capacity: Int
    private let cache = Mutex<[(key: [String: String], page: CatalogPage?)]>([])

    /// What stands for every filter value no item has.
    static let noMatch = "\u{0}none"

    init(
        parameters: Set<String>, filterValues: [String: Set<String>], sortKeys: Set<String>, generator: PageGenerator,
        capacity: Int = 64
    ) {
        self.parameters = parameters
        self.filterValues = filterValues
        self.sortKeys = sortKeys
        self.generator = generator
        self.capacity = capacity
    }

    /// The values of the parameters the page reads, normalised (an unknown sort key dropped, a filter value no item
    /// has collapsed into ``noMatch``), or `nil` when nothing of the request changes the page.
    func relevant(_ query: [String: String]) -> [String: String]? {
        var relevant: [String: String] = [:]
        for (name, value) in query where parameters.contains(name) {
            if name == PageTemplate.sortParameter, filterValues[name] == nil {
                let key = value.hasPrefix("-") ? String(value.dropFirst()) : value
                if sortKeys.contains(key) { relevant[name] = value }
            } else {
                relevant[name] = filterValues[name]?.contains(value) == false ? Self.noMatch : value
            }
        }
        return relevant.isEmpty ? nil : relevant
    }

    /// The page made from `data` for `query` (as ``relevant(_:)`` gives it); `nil` when that page has errors.
    func page(for query: [String: String], data: DataDocuments) -> CatalogPage? {
        if let found = cache.withLock({ cache -> CatalogPage?? in
            guard let index = cache.firstIndex(where: { $0.key == query }) else { return nil }
            let entry = cache.remove(at: index)
            cache.append(entry)
            return .some(entry.page)
        }) {
            return found
        }
        let made = generator.page(with: data, query: query)
        cache.withLock { cache in
            cache.append((query, made))
            if cache.count > capacity { cache.removeFirst(cache.count - capacity) }
        }
        return made
    }

    /// A page made here whose content version is `version` (a cursor issued on it), while it is kept.
    func page(version: String) -> CatalogPage? {
        cache.withLock { cache in cache.first { $0.page?.version == version }?.page }
    }
}
