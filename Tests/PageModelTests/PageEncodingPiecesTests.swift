import Testing

@testable import PageModel

/// `PageModel.encoded(pieceSize:into:)` hands over exactly the bytes of `encoded()`, whatever the piece size; the
/// server hashes page files this way for their content version.
@Suite struct PageEncodingPiecesTests {
    static let page: PageModel = {
        let text = #"""
            {"schemaVersion": 1, "kind": "page", "page": {"id": "p", "title": "T \"quoted\"",
              "header": [{"id": "h", "type": "text", "content": {"text": "sections"}}],
              "sections": [
                {"id": "a", "title": "A", "widgets": [{"id": "w1", "type": "text", "content": {"text": "one"}}]},
                {"id": "b", "widgets": [{"id": "w2", "type": "text", "content": {"text": "two"},
                  "minAppVersion": "3.2.0", "requires": ["haptics"], "fallback": "drop"}]},
                {"id": "c", "widgets": []}
              ],
              "footer": [{"id": "f", "type": "text", "content": {"text": "end"}}]}}
            """#
        return try! PageDecoder().decodePage(Array(text.utf8)).value
    }()

    @Test(arguments: [1, 40, 65_536])
    func piecesConcatenateToTheEncodedPage(pieceSize: Int) {
        var pieces: [[UInt8]] = []
        Self.page.encoded(pieceSize: pieceSize) { pieces.append($0) }
        #expect(pieces.flatMap { $0 } == Self.page.encoded())
        #expect(pieces.allSatisfy { !$0.isEmpty })
        if pieceSize == 1 { #expect(pieces.count == Self.page.sections.count + 1) }
    }

    @Test func aPageWithoutSectionsOrOptionalMembers() {
        let page = PageModel(id: "empty")
        var bytes: [UInt8] = []
        page.encoded(pieceSize: 1) { bytes += $0 }
        #expect(bytes == page.encoded())
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"id":"empty","sections":[]}"#)
    }
}
