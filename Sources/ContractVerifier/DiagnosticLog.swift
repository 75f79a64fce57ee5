import PageModel
import PageStore

/// The crawl's own record of every diagnostic a ``PageStore`` accepted, in order, fed by
/// ``PageStore/diagnosticsDidArrive``.
///
/// The store's `diagnostics` are only the shown document's findings (a `replacePage` replaces them); the crawl
/// needs every batch — each chunk's, each action response's — to attribute findings to the request that
/// brought them, so it keeps this log and reads slices of it.
@MainActor
final class DiagnosticLog {
    private(set) var entries: [Diagnostic] = []

    /// Starts recording `store`'s batches (replacing any earlier `diagnosticsDidArrive`).
    init(recording store: PageStore) {
        store.diagnosticsDidArrive = { [weak self] batch in self?.entries += batch }
    }

    var count: Int { entries.count }

    /// The entries recorded since the log held `count` of them.
    func since(_ count: Int) -> ArraySlice<Diagnostic> {
        entries[min(count, entries.count)...]
    }
}
