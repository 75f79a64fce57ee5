import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// `/__preview` (docs/preview.md): served when configured, its files equal to `Preview/web/`, its widget table
/// equal to the catalog. The browser side is tested in Chromium by `scripts/preview-test`.
@Suite struct PreviewTests {
    static let webDirectory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Sources/BFFServer/Preview/web")
    }()

    static let files = ["index.html", "preview.css", "preview.js", "widgets.js"]

    @Test func onInMockModeOffInProductionUnlessSet() {
        var configuration = BFFConfiguration()
        #expect(!configuration.servesPreview)
        configuration.mock.enabled = true
        #expect(configuration.servesPreview)
        configuration.preview.enabled = false
        #expect(!configuration.servesPreview)
        configuration.mock.enabled = false
        configuration.preview.enabled = true
        #expect(configuration.servesPreview)
    }

    @Test func theFlagAndEnvironmentSetIt() throws {
        let loader = ConfigurationLoader()
        let off = try loader.load(files: [], environment: ["FLOW_BFF_PREVIEW_ENABLED": "false"], flags: [:])
        #expect(off.preview.enabled == false)
        let on = try loader.load(files: [], environment: [:], flags: ["preview.enabled": "true"])
        #expect(on.preview.enabled == true)
        #expect(throws: ConfigurationError.self) {
            try loader.load(files: [], environment: [:], flags: ["preview.enabled": "maybe"])
        }
    }

    @Test func theServedFilesAreTheWebDirectory() async throws {
        try await withTestApplication(configuration: previewConfiguration(mock: true)) { http in
            for file in Self.files {
                let served = try await http.get("/__preview/\(file)")
                let source = try String(contentsOf: Self.webDirectory.appendingPathComponent(file), encoding: .utf8)
                #expect(served.status == 200, "\(file)")
                #expect(served.text == source, "\(file) differs from Preview/web (the EmbedFiles plugin)")
            }
            let index = try await http.get("/__preview")
            #expect(index.status == 200)
            #expect(index.header("Content-Type") == "text/html; charset=utf-8")
            #expect(index.text.contains("/__preview/preview.js"))
            let unknown = try await http.get("/__preview/nope.js")
            #expect(unknown.status == 404)
            #expect(unknown.header("Content-Type") == "application/problem+json")
            #expect(try JSONParser().parse(Array(unknown.text.utf8))["code"] == "unknown_preview_asset")
        }
    }

    @Test func theWidgetTableIsTheCatalog() throws {
        let source = try String(contentsOf: Self.webDirectory.appendingPathComponent("widgets.js"), encoding: .utf8)
        let table = try #require(
            source.components(separatedBy: "const WIDGETS = {").last?.components(separatedBy: "\n};").first)
        let keys = table.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  \""), let end = line.dropFirst(3).firstIndex(of: "\"") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
        #expect(keys.sorted() == WidgetCatalog.standard.types)
        #expect(keys.count == Set(keys).count)
    }

    @Test func theCatalogListsPagesScenariosAndProfiles() async throws {
        let empty = try bundled("empty.json")
        let scenario = empty.replacingOccurrences(of: "Saved for later", with: "Nothing saved yet")
        let pages = try temporaryPages(["empty.json": empty, "empty.fresh.json": scenario])
        try await withTestApplication(pages: pages, configuration: previewConfiguration(mock: true)) { http in
            let answer = try JSONParser().parse(Array(try await http.get("/__preview/catalog.json").text.utf8))
            let pages = answer["pages"]?.arrayValue ?? []
            let ids = pages.compactMap { $0["id"]?.stringValue }
            #expect(ids == ["empty"])
            #expect(answer["mock"] == true)
            let profiles = answer["profiles"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(profiles == ["current", "legacy", "minimal"])
            #expect(pages.first?["scenarios"] == ["fresh"])
            #expect(pages.first?["source"] == "file")
        }
    }

    /// Pages made from data: a page per item comes with sample parameters to open it with, and the data documents
    /// are listed with their item counts.
    @Test func theCatalogListsDataAndTheParametersOfPagesPerItem() async throws {
        try await withTestApplication(configuration: previewConfiguration(mock: true)) { http in
            let answer = try JSONParser().parse(Array(try await http.get("/__preview/catalog.json").text.utf8))
            #expect(answer["data"] == [["name": "orders", "items": 45]])
            let pages = answer["pages"]?.arrayValue ?? []
            let order = pages.first { $0["id"] == "order" }
            #expect(
                order?["parameters"] == [["orderID": "o-1001"], ["orderID": "o-1023"], ["orderID": "o-1045"]],
                "\(String(describing: order))")
            #expect(pages.first { $0["id"] == "orders" }?["parameters"] == nil)
        }
    }

    @Test func offMeansNotFoundAndNoJournal() async throws {
        try await withTestApplication(configuration: previewConfiguration(mock: false)) { http in
            let index = try await http.get("/__preview")
            let script = try await http.get("/__preview/preview.js")
            #expect(index.status == 404)
            #expect(script.status == 404)
        }
        var configuration = previewConfiguration(mock: true)
        configuration.mock.watch = .off
        try await withTestApplication(configuration: configuration) { http in
            #expect(try await http.get("/__preview/preview.js").status == 200)
            #expect(try await http.get("/v1/pages/cart").status == 200)
            let journal = try JSONParser().parse(Array(try await http.get("/__admin/journal").text.utf8))
            let targets = journal["entries"]?.arrayValue?.compactMap { $0["target"]?.stringValue }
            #expect(targets == ["/v1/pages/cart"], "preview files are not journaled; page requests are")
        }
    }

    @Test func reloadsArePushedAsServerSentEvents() async throws {
        let pages = try copyOfBundledPages()
        try await withTestServer(pages: pages, configuration: previewConfiguration(mock: true)) { server in
            let stream = HTTPTestClient(port: server.port, timeoutSeconds: 10)
            try await stream.send(
                "GET /__preview/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            let first = try await stream.read(through: #"data: {"count":0}"# + "\n\n")
            #expect(first.hasPrefix("HTTP/1.1 200"))
            #expect(first.lowercased().contains("content-type: text/event-stream"))
            #expect(first.lowercased().contains("transfer-encoding: chunked"))
            #expect(first.contains("retry: 500\n"))
            // A reload (here through the admin API; the watcher calls the same reloadPages) is pushed at once.
            let http = HTTPTestClient(port: server.port)
            #expect(try await http.request("POST", "/__admin/reload", headers: [("X-Flow-Admin", "1")]).status == 200)
            _ = try await stream.read(through: #"event: reload"# + "\n" + #"data: {"count":1}"# + "\n\n")
            #expect(try await http.request("POST", "/__admin/reload", headers: [("X-Flow-Admin", "1")]).status == 200)
            _ = try await stream.read(through: #"data: {"count":2}"# + "\n\n")
            await stream.close()
        }
    }

    func bundled(_ file: String) throws -> String {
        try String(contentsOfFile: TestServer.bundledPages + "/" + file, encoding: .utf8)
    }

    func previewConfiguration(mock: Bool) -> BFFConfiguration {
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        configuration.mock.enabled = mock
        configuration.mock.watch = .off
        configuration.preview.profiles =
            Self.webDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "config/capability-profiles.json"
            ).path
        return configuration
    }
}
