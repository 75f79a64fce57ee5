import Synchronization

/// The catalog snapshot being served: read by every route group at the start of a request, swapped atomically by
/// a reload (requests in flight finish with the snapshot they started with).
final class ServedSnapshot: Sendable {
    private let current: Mutex<CatalogSnapshot>

    init(_ snapshot: CatalogSnapshot) {
        current = Mutex(snapshot)
    }

    var snapshot: CatalogSnapshot { current.withLock { $0 } }

    func replace(with next: CatalogSnapshot) {
        current.withLock { $0 = next }
    }
}
