import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// The authoring rule for types and the positions of findings, as the server's loader applies them (the same
/// loader `flow-bff check` uses).
@Suite struct AuthoringCheckTests {
    static func page(title: String, widgetType: String) -> String {
        #"{"schemaVersion": 1, "kind": "page", "page": {"id": "live", "title": ""# + title
            + #"", "sections": [{"id": "s", "widgets": [{"id": "r", "type": ""# + widgetType
            + #"", "content": {"title": "Row"}}]}]}}"#
    }

    @Test func aTypoIsAnErrorWithItsPositionAndCustomTypesAreAccepted() throws {
        let directory = try temporaryPages([
            "live.json": Self.page(title: "v1", widgetType: "list_rwo"),
            "custom.json": Self.page(title: "c", widgetType: "map_view").replacingOccurrences(
                of: #""id": "live""#, with: #""id": "custom""#),
            "extension.json": Self.page(title: "e", widgetType: "x-map").replacingOccurrences(
                of: #""id": "live""#, with: #""id": "extension""#),
        ])
        var defaults = BFFConfiguration.Pages()
        defaults.customWidgetTypes = ["map_view"]
        let catalog = PageCatalog.load(directory: directory, defaults: defaults)
        let findings = catalog.diagnostics
        #expect(findings.count == 1, "\(findings)")
        let typo = try #require(findings.first)
        #expect(typo.file == "live.json")
        #expect(typo.diagnostic.severity == .error)
        #expect(typo.diagnostic.code == "unknown_widget_type")
        #expect(typo.diagnostic.message == #"unknown widget type "list_rwo" (did you mean list_row?)"#)
        let column = Self.page(title: "v1", widgetType: "list_rwo").components(separatedBy: #""list_rwo""#)[0].count + 1
        #expect(typo.position == JSONSourceMap.Position(line: 1, column: column, offset: column - 1))
        #expect(typo.located(in: "pages") == "pages/live.json:1:\(column): \(typo.diagnostic)")
        #expect(catalog.pageIDs == ["custom", "extension"])
        #expect(PageCatalog.load(directory: directory).diagnostics.errorCount == 2, "map_view unregistered")
    }

    @Test func theServerRefusesToReloadATypoAndKeepsTheLastGoodPage() async throws {
        let directory = try temporaryPages(["live.json": Self.page(title: "v1", widgetType: "list_row")])
        var configuration = BFFConfiguration()
        configuration.mock.enabled = true
        configuration.mock.watch = .off
        try await withTestServer(pages: directory, configuration: configuration) { server in
            let http = HTTPTestClient(port: server.port)
            func title() async throws -> String? {
                try await PageDecoder().decodePage(http.get("/v1/pages/live").body).value.title
            }
            #expect(try await title() == "v1")
            try Data(Self.page(title: "v2", widgetType: "list_rwo").utf8).write(
                to: URL(fileURLWithPath: directory + "/live.json"))
            server.service.application.reloadPages()
            #expect(try await title() == "v1", "the last good version stays")
            let status = try json(try await http.get("/__admin/status"))
            let reload = try #require(status["reload"])
            #expect(reload["errors"] == 1)
            #expect(reload["keptLastGood"] == ["live.json"])
            let diagnostic = try #require(reload["diagnostics"]?.arrayValue?.first)
            #expect(diagnostic["code"] == "unknown_widget_type")
            #expect(diagnostic["severity"] == "error")
            #expect(diagnostic["line"] == 1)
            #expect(diagnostic["message"]?.stringValue?.contains("did you mean list_row?") == true)

            try Data(Self.page(title: "v3", widgetType: "list_row").utf8).write(
                to: URL(fileURLWithPath: directory + "/live.json"))
            server.service.application.reloadPages()
            #expect(try await title() == "v3")
        }
    }

    @Test func backupFilesAndSubfoldersAreNoticesNotErrors() throws {
        let directory = try temporaryPages([
            "live.json": Self.page(title: "v1", widgetType: "list_row"), ".#live.json": "{", "live.json~": "{",
        ])
        try FileManager.default.createDirectory(atPath: directory + "/more", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/more/other.json"))
        let catalog = PageCatalog.load(directory: directory)
        #expect(catalog.pageIDs == ["live"])
        #expect(
            catalog.diagnostics.map { "\($0.file) \($0.diagnostic.severity) \($0.diagnostic.code)" } == [
                ".#live.json info skipped_file", "live.json~ info skipped_file", "more/ info ignored_subfolder",
            ])
        #expect(PageCatalog.isSkipped(fileName: ".DS_Store"))
        #expect(PageCatalog.isSkipped(fileName: "#live.json#"))
        #expect(!PageCatalog.isSkipped(fileName: "live.json"))
    }
}
