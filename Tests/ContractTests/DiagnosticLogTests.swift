import PageModel
import PageStore
import Testing

@testable import ContractVerifier

/// The crawl's diagnostic log: positions count every entry recorded, and attributed entries can be forgotten so a
/// long pagination does not keep every chunk's findings.
@Suite @MainActor struct DiagnosticLogTests {
    static func finding(_ code: String) -> Diagnostic {
        .warning(code, "/sections/0", "finding \(code)")
    }

    @Test func forgettingKeepsPositionsAndTheEntriesAfterThem() {
        let store = PageStore(pageID: "long", loader: ScriptedPageLoader())
        let log = DiagnosticLog(recording: store)
        store.diagnosticsDidArrive?([Self.finding("a"), Self.finding("b")])
        let seen = log.count
        store.diagnosticsDidArrive?([Self.finding("c")])
        #expect(log.since(seen).map(\.code) == ["c"])

        log.forget(before: seen)

        #expect(log.forgotten == 2)
        #expect(log.count == 3)
        #expect(log.since(seen).map(\.code) == ["c"])
        store.diagnosticsDidArrive?([Self.finding("d")])
        #expect(log.since(seen).map(\.code) == ["c", "d"])
        #expect(log.since(log.count).isEmpty)
        log.forget(before: log.count)
        #expect(log.forgotten == 4)
        #expect(log.since(4).isEmpty)
    }
}
