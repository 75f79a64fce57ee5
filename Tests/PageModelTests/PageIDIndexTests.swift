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

/// ``PageModel/append(_:diagnostics:index:)`` is ``PageModel/appending(_:diagnostics:index:)`` in place.
@Suite struct PageAppendInPlaceTests {
    @Test func appendingInPlaceMatchesAppendingAndKeepsTheSectionStorage() {
        let first = PageModel(id: "p", sections: [Section(id: "a", widgets: [Widget(id: "w.a", type: "divider")])])
        let chunk = PageIDIndexTests.chunk(["b", "a"], widget: "w.")
        var copyIndex = PageIDIndex(first)
        var copyDiagnostics: [Diagnostic] = []
        let appended = first.appending(chunk, diagnostics: &copyDiagnostics, index: &copyIndex)

        var page = first
        page.sections.reserveCapacity(8)
        let storage = page.sections.withUnsafeBufferPointer { $0.baseAddress }
        var index = PageIDIndex(first)
        var diagnostics: [Diagnostic] = []
        page.append(chunk, diagnostics: &diagnostics, index: &index)

        #expect(page == appended)
        #expect(diagnostics == copyDiagnostics)
        #expect(page.sections.map(\.id) == ["a", "b", "a#2"])
        #expect(page.sections.withUnsafeBufferPointer { $0.baseAddress } == storage)
        #expect(first.sections.map(\.id) == ["a"])
    }
}
