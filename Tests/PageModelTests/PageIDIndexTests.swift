import PageModel
import Testing

/// Appending with a kept ``PageIDIndex`` gives exactly what appending without one gives.
@Suite struct PageIDIndexTests {
    static func chunk(_ ids: [String], widget: String) -> NextPage {
        NextPage(
            sections: ids.map { Section(id: $0, widgets: [Widget(id: widget + $0, type: "divider")]) },
            pagination: Pagination(hasMore: true, postback: "next"))
    }

    @Test func indexedAppendingMatchesPlainAppendingChunkAfterChunk() {
        let first = PageModel(
            id: "p", header: [Widget(id: "w.a", type: "divider")],
            sections: [Section(id: "a", widgets: [Widget(id: "w.b", type: "divider")])])
        let chunks = [
            Self.chunk(["b", "c"], widget: "w."), Self.chunk(["a", "d"], widget: "w."),
            Self.chunk(["c", "a#2"], widget: "x."),
        ]
        var plain = first
        var indexed = first
        var index = PageIDIndex(first)
        var plainDiagnostics: [Diagnostic] = []
        var indexedDiagnostics: [Diagnostic] = []
        for chunk in chunks {
            plain = plain.appending(chunk, diagnostics: &plainDiagnostics)
            indexed = indexed.appending(chunk, diagnostics: &indexedDiagnostics, index: &index)
        }
        #expect(indexed == plain)
        #expect(indexedDiagnostics == plainDiagnostics)
        #expect(plain.sections.map(\.id) == ["a", "b", "c", "a#2", "d", "c#2", "a#2#2"])
        #expect(plainDiagnostics.filter { $0.code == "duplicate_id" }.count == 5)
    }
}
