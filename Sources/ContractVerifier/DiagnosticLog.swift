import PageModel
import PageStore

/// The crawl's own record of every diagnostic a ``PageStore`` accepted, in order, fed by
/// ``PageStore/diagnosticsDidArrive``.
///
/// The store's `diagnostics` are only the shown document's findings (a `replacePage` replaces them); the crawl
/// needs every batch — each chunk's, each action response's — to attribute findings to the request that
/// brought them, so it keeps this log and reads slices of it. Positions count every entry ever recorded; entries
/// the crawl has attributed can be forgotten (``forget(before:)``), so a long pagination keeps only its latest
/// chunk's findings, not every response's.
@MainActor
final class DiagnosticLog {
    /// The entries from position ``forgotten`` on.
    private var entries: [Diagnostic] = []
    /// How many entries were recorded and then forgotten.
    private(set) var forgotten = 0

    /// Starts recording `store`'s batches (replacing any earlier `diagnosticsDidArrive`).
    init(recording store: PageStore) {
        store.diagnosticsDidArrive = { [weak self] batch in self?.entries += batch }
    }

    /// How many entries were recorded in all (the position the next one takes).
    var count: Int { forgotten + entries.count }

    /// The entries recorded since the log held `count` of them; `count` must not be before ``forgotten``.
    func since(_ count: Int) -> ArraySlice<Diagnostic> {
        precondition(count >= forgotten, "entries before \(forgotten) were forgotten; asked from \(count)")
        return entries[min(count - forgotten, entries.count)...]
    }

    /// Drops the entries before position `count`: the crawl has attributed them and will not read them again.
    func forget(before count: Int) {
        let drop = min(max(count - forgotten, 0), entries.count)
        entries.removeFirst(drop)
        forgotten += drop
    }
}
