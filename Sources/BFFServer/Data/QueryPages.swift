import PageModel
import Synchronization

/// The versions of a page made from data for the query parameters its templates read (`filterBy`, `sortable`:
/// pages/README.md § Pages from data): `orders?status=processing&sort=-total` is made once for those values, when
/// first asked for, and kept (the most recently used `capacity` of them) with its own version, ETag, cursors and
/// cached bytes. A request without any of the parameters gets the page as loaded.
final class QueryPages: Sendable {
    /// The query parameters the page reads.
    let parameters: Set<String>
    let generator: PageGenerator
    let capacity: Int
    private let cache = Mutex<[(key: String, page: CatalogPage)]>([])

    init(parameters: Set<String>, generator: PageGenerator, capacity: Int = 64) {
        self.parameters = parameters
        self.generator = generator
        self.capacity = capacity
    }

    /// The values of the parameters the page reads, or `nil` when the request names none of them.
    func relevant(_ query: [String: String]) -> [String: String]? {
        let relevant = query.filter { parameters.contains($0.key) }
        return relevant.isEmpty ? nil : relevant
    }

    /// The page made from `data` for `query` (the relevant values); `nil` when that page has errors.
    func page(for query: [String: String], data: DataDocuments) -> CatalogPage? {
        let key = query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        if let found = cache.withLock({ cache -> CatalogPage? in
            guard let index = cache.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = cache.remove(at: index)
            cache.append(entry)
            return entry.page
        }) {
            return found
        }
        guard let made = generator.page(with: data, query: query) else { return nil }
        cache.withLock { cache in
            cache.append((key, made))
            if cache.count > capacity { cache.removeFirst(cache.count - capacity) }
        }
        return made
    }

    /// A page made here whose content version is `version` (a cursor issued on it), while it is kept.
    func page(version: String) -> CatalogPage? {
        cache.withLock { cache in cache.first { $0.page.version == version }?.page }
    }
}
