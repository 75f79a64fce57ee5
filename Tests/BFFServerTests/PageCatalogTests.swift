import BFFTesting
import Foundation
import PageModel
import Testing

@testable import BFFServer

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

@Suite struct PageCatalogTests {
    @Test func theBundledPagesLoadWithoutErrors() throws {
        let catalog = PageCatalog.load(directory: repositoryRoot + "/pages")
        let errors = catalog.diagnostics.filter { $0.diagnostic.severity == .error }
        #expect(errors.isEmpty, "\(errors)")
        #expect(catalog.pageIDs.contains("home"))
        #expect(catalog.pageIDs.count >= 5)
        #expect(!catalog.actions.isEmpty)
        let feed = try #require(catalog.pages["feed"])
        #expect(feed.page.sections.count >= 40)
    }

    func page(
        _ id: String,
        sections: String = #"[{"id": "s", "widgets": [{"id": "t", "type": "text", "content": {"text": "x"}}]}]"#,
        server: String? = nil
    ) -> String {
        #"{"schemaVersion": 1, "kind": "page", "page": {"id": ""# + id + #"", "sections": "# + sections + "}"
            + (server.map { #", "server": "# + $0 } ?? "") + "}"
    }

    @Test func problemsAreReportedWithFileAndPath() throws {
        let directory = try temporaryPages([
            "good.json": page(
                "good",
                server:
                    #"{"pageSize": 2, "actions": {"good.tap": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "removeWidget", "id": "t"}]}}}"#
            ),
            "misnamed.json": page("other"),
            "bad..id.json": page("x"),
            "broken.json": #"{"schemaVersion": 1, "kind": "page", "page": {"id": "broken", "sections": [}}"#,
            "more.json": page(
                "more",
                server:
                    #"{"pagesize": 1, "actions": {"ghost": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "removeWidget", "id": "nope"}]}, "good.tap": {"schemaVersion": 1, "kind": "actionResponse"}}}"#
            ),
            "refs.json": page(
                "refs",
                sections:
                    #"[{"id": "s", "widgets": [{"id": "b", "type": "button", "content": {"title": "x"}, "actions": {"tap": {"type": "api", "name": "good.tpa"}}}, {"id": "c", "type": "button", "content": {"title": "y"}, "actions": {"tap": {"type": "open_bottom_sheet", "pageID": "missing"}}}]}]"#
            ),
        ])
        let catalog = PageCatalog.load(directory: directory)
        let lines = catalog.diagnostics.map(\.description)
        #expect(
            lines.contains(
                "bad..id.json: /: error: invalid_page_id: page file names are <page id>.json with ids matching \(PageID.pattern)"
            ))
        #expect(
            lines.contains(
                "misnamed.json: /page/id: error: page_id_mismatch: page id \"other\" differs from the file name; name the file other.json"
            ))
        #expect(
            lines.contains {
                $0.hasPrefix("broken.json: /: error: invalid_json: unexpected character '}' at line 1, column ")
            })
        #expect(
            lines.contains(
                "more.json: /server/pagesize: error: unknown_setting: unknown setting (did you mean pageSize?)"))
        #expect(
            lines.contains {
                $0.hasPrefix("more.json: /server/actions/ghost/mutations/0/id: error: mutation_target_not_found:")
            })
        #expect(
            lines.contains(
                "more.json: /server/actions/good.tap: error: duplicate_action: action \"good.tap\" is already declared by page \"good\""
            ))
        #expect(
            lines.contains(
                "refs.json: /page/sections/0/widgets/0/actions/tap/name: error: unknown_action_reference: no page declares action \"good.tpa\" (did you mean good.tap?)"
            ))
        #expect(
            lines.contains(
                "refs.json: /page/sections/0/widgets/1/actions/tap/pageID: error: unknown_page_reference: there is no page \"missing\" in the catalog"
            ))
        #expect(catalog.pageIDs == ["good"])
        #expect(catalog.actions.keys.sorted() == ["good.tap"])
        #expect(catalog.pages["good"]?.pageSize == 2)
    }

    @Test func aBrokenPageFileDoesNotBreakThePagesThatOpenIt() throws {
        let opener =
            #"[{"id": "s", "widgets": [{"id": "c", "type": "button", "content": {"title": "y"}, "actions": {"tap": {"type": "open_bottom_sheet", "pageID": "sheet"}}}]}]"#
        let directory = try temporaryPages(["home.json": page("home", sections: opener), "sheet.json": page("sheet")])
        let first = PageCatalog.load(directory: directory)
        #expect(first.diagnostics.isEmpty)
        try Data("{ broken".utf8).write(to: URL(fileURLWithPath: directory + "/sheet.json"))
        let fresh = PageCatalog.load(directory: directory)
        #expect(fresh.diagnostics.map(\.file) == ["sheet.json"], "\(fresh.diagnostics.map(\.description))")
        let merge = fresh.keepingLastGood(from: first)
        #expect(merge.kept == ["sheet.json"])
        #expect(merge.catalog.pages["home"]?.version == first.pages["home"]?.version)
        try FileManager.default.removeItem(atPath: directory + "/sheet.json")
        #expect(
            PageCatalog.load(directory: directory).diagnostics.map(\.diagnostic.code) == ["unknown_page_reference"],
            "a page without a file is unknown")
    }

    @Test func chunksCoverEverySectionOnceAndCostIsPerChunk() throws {
        let sections = (0..<7).map { Section(id: "s\($0)", widgets: [Widget(id: "w\($0)", type: "divider")]) }
        let entry = CatalogPage(page: PageModel(id: "p", sections: sections), pageSize: 3, cacheControl: "no-cache")
        let first = entry.initialDocument { "c\($0)" }
        #expect(first.sections.map(\.id) == ["s0", "s1", "s2"])
        #expect(first.pagination == Pagination(hasMore: true, postback: "c3"))
        let second = try #require(entry.chunk(at: 3) { "c\($0)" })
        #expect(second.sections.map(\.id) == ["s3", "s4", "s5"])
        #expect(second.pagination == Pagination(hasMore: true, postback: "c6"))
        let last = try #require(entry.chunk(at: 6) { "c\($0)" })
        #expect(last.sections.map(\.id) == ["s6"])
        #expect(last.pagination == .end)
        #expect(entry.chunk(at: 8) { "c\($0)" } == nil)
        #expect(entry.chunk(at: -1) { "c\($0)" } == nil)
        let whole = CatalogPage(page: PageModel(id: "p", sections: sections), pageSize: 0, cacheControl: "")
        #expect(whole.initialDocument { "c\($0)" }.sections.count == 7)
        #expect(whole.initialDocument { "c\($0)" }.pagination == nil)
    }

    @Test func theVersionChangesWithContentAndPageSize() {
        let page = PageModel(id: "p", sections: [Section(id: "s", widgets: [Widget(id: "w", type: "divider")])])
        let a = CatalogPage(page: page, pageSize: 3, cacheControl: "")
        #expect(a.version == CatalogPage(page: page, pageSize: 3, cacheControl: "x").version)
        #expect(a.version != CatalogPage(page: page, pageSize: 4, cacheControl: "").version)
        var edited = page
        edited.title = "New"
        #expect(a.version != CatalogPage(page: edited, pageSize: 3, cacheControl: "").version)
        #expect(a.version.count == 16)
    }
}
