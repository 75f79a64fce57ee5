import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// `flow-bff import har`, run through the built executable on a HAR archive made of real answers of the bundled
/// server; the folder it writes is loaded with the server's own loader and served again.
@Suite struct HARImportTests {
    static let key = String(repeating: "har-import-cursor-key-", count: 2)

    /// What the capture saw: the archive and the section ids of each feed chunk, in order.
    struct Capture {
        var archive: JSONValue
        var feedChunks: [[String]]
    }

    /// Captures `home` (stored base64), `feed` with every chunk (next chunks by GET and POST in turn), a product
    /// variant, an api action, and two entries that are not imported (a 404, an operational route).
    static func captureSampleShop(stopAfterFeedChunks limit: Int = .max) async throws -> Capture {
        try await withTestServer(cursorKey: key) { server in
            let http = HTTPTestClient(port: server.port)
            var har = HARCapture(baseURL: server.baseURL)
            try await har.exchange(http, "GET", "/v1/pages/home", base64: true)
            let first = try await har.exchange(http, "GET", "/v1/pages/feed")
            let page = try PageDecoder().decodePage(first.body).value
            var chunks = [page.sections.map(\.id)]
            var pagination = page.pagination
            while let postback = pagination?.postback, pagination?.hasMore == true, chunks.count < min(limit, 100) {
                let next =
                    chunks.count.isMultiple(of: 2)
                    ? try await har.exchange(
                        http, "POST", "/v1/pages/feed/next", json: #"{"postback": "\#(postback)"}"#)
                    : try await har.exchange(http, "GET", "/v1/pages/feed/next?postback=\(postback)")
                let chunk = try PageDecoder().decodeNextPage(next.body).value
                chunks.append(chunk.sections.map(\.id))
                pagination = chunk.pagination
            }
            try await har.exchange(http, "GET", "/v1/pages/product?productID=p-1042")
            let answer = try await har.exchange(
                http, "POST", "/v1/actions/home.dismissPromo",
                json: #"{"pageID": "home", "widgetID": "promo.dismiss", "event": "tap"}"#)
            #expect(answer.status == 200)
            try await har.exchange(http, "GET", "/v1/pages/no-such-page")
            try await har.exchange(http, "GET", "/healthz")
            return Capture(archive: har.document, feedChunks: chunks)
        }
    }

    static func temporaryFile(_ archive: JSONValue) throws -> String {
        let path = NSTemporaryDirectory() + "flow-bff-capture-\(UUID().uuidString).har"
        try Data(JSONWriter().write(archive)).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func snapshot(_ folder: String) throws -> [String: (Data, Date?)] {
        var files: [String: (Data, Date?)] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let path = folder + "/" + name
            let date = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            files[name] = (try Data(contentsOf: URL(fileURLWithPath: path)), date)
        }
        return files
    }

    @Test func aCaptureOfTheSampleShopImportsIntoAFolderTheServerLoadsAndServesAlike() async throws {
        let capture = try await Self.captureSampleShop()
        #expect(HARShape.violations(capture.archive) == [])
        #expect(capture.feedChunks.count > 2, "the feed paginates")
        let har = try Self.temporaryFile(capture.archive)
        let pages = NSTemporaryDirectory() + "flow-bff-imported-\(UUID().uuidString)"
        defer {
            try? FileManager.default.removeItem(atPath: har)
            try? FileManager.default.removeItem(atPath: pages)
        }
        let run = try await FlowBFFProcess.run(
            ["import", "har", har, "--pages", pages], directory: NSTemporaryDirectory())
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.errors.isEmpty)
        let feedEntries = (1...capture.feedChunks.count).map(String.init).joined(separator: ",")
        #expect(run.output.contains("imported page feed (entries \(feedEntries)): written feed.json"))
        #expect(run.output.contains("imported page home (entry 0)"))
        #expect(run.output.contains("imported action home.dismissPromo"))
        #expect(run.output.contains("skipped: status 404, not a 2xx answer"))
        #expect(run.output.contains("/healthz: skipped: not a contract route"))

        // The server's own loader accepts the folder, and it holds what was captured.
        let catalog = PageCatalog.load(directory: pages)
        #expect(catalog.diagnostics.filter { $0.diagnostic.severity != .info }.map(\.description) == [])
        let bundled = PageCatalog.load(directory: TestServer.bundledPages)
        let feed = try #require(catalog.pages["feed"])
        #expect(feed.page.sections.map(\.id) == capture.feedChunks.flatMap { $0 })
        #expect(feed.page.sections.map(\.id) == bundled.pages["feed"]?.page.sections.map(\.id))
        #expect(feed.pageSize == bundled.pages["feed"]?.pageSize)
        #expect(catalog.actions["home.dismissPromo"]?.pageID == "home")
        #expect(catalog.actions["home.dismissPromo"]?.response == bundled.actions["home.dismissPromo"]?.response)
        #expect(catalog.scenarios["product"]?["p-1042"] != nil)

        // Served again, the recorded folder answers with the same chunks and the same product variant.
        try await withTestServer(pages: pages, cursorKey: Self.key) { server in
            let http = HTTPTestClient(port: server.port)
            var page = try PageDecoder().decodePage(try await http.get("/v1/pages/feed").body).value
            var chunks = [page.sections.map(\.id)]
            while let postback = page.pagination?.postback, page.hasMore, chunks.count < 100 {
                let chunk = try PageDecoder().decodeNextPage(
                    try await http.get("/v1/pages/feed/next?postback=\(postback)").body
                ).value
                chunks.append(chunk.sections.map(\.id))
                page.pagination = chunk.pagination
            }
            #expect(chunks == capture.feedChunks)
            let product = try PageDecoder().decodePage(
                try await http.get("/v1/pages/product?productID=p-1042").body
            ).value
            #expect(
                product.title
                    == bundled.scenarios["product"]?["p-1042"].flatMap { scenario in
                        if case .page(let page) = scenario.content { page.page.title } else { nil }
                    })
        }

        // Importing the same capture again changes no byte and no modification time.
        let before = try Self.snapshot(pages)
        let again = try await FlowBFFProcess.run(
            ["import", "har", har, "--pages", pages], directory: NSTemporaryDirectory())
        #expect(again.status == 0)
        #expect(!again.output.contains("written"))
        let after = try Self.snapshot(pages)
        #expect(after.keys.sorted() == before.keys.sorted())
        for (name, (bytes, date)) in before {
            #expect(after[name]?.0 == bytes, "\(name)")
            #expect(after[name]?.1 == date, "\(name)")
        }
    }

    @Test func anIncompleteChainIsImportedAndAnInvalidAnswerFailsTheImport() async throws {
        var capture = try await Self.captureSampleShop(stopAfterFeedChunks: 3)
        guard case .object(var root) = capture.archive, case .object(var log)? = root["log"],
            case .array(var entries)? = log["entries"], case .object(var action) = entries[5],
            case .object(var response)? = action["response"], case .object(var content)? = response["content"]
        else {
            Issue.record("unexpected capture shape")
            return
        }
        #expect(action["request"]?["url"]?.stringValue?.hasSuffix("/v1/actions/home.dismissPromo") == true)
        content["text"] = #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": {}}"#
        response["content"] = .object(content)
        action["response"] = .object(response)
        entries[5] = .object(action)
        log["entries"] = .array(entries)
        root["log"] = .object(log)
        capture.archive = .object(root)
        let har = try Self.temporaryFile(capture.archive)
        let pages = NSTemporaryDirectory() + "flow-bff-imported-\(UUID().uuidString)"
        defer {
            try? FileManager.default.removeItem(atPath: har)
            try? FileManager.default.removeItem(atPath: pages)
        }
        let run = try await FlowBFFProcess.run(
            ["import", "har", har, "--pages", pages], directory: NSTemporaryDirectory())
        #expect(run.status == 1)
        #expect(run.output.contains("imported page feed (entries 1,2,3): written feed.json"))
        #expect(run.output.contains("note: feed: incomplete, the last of the 3 recorded chunks says hasMore"))
        #expect(run.errors.contains("entry 5 POST "))
        #expect(run.errors.contains("error: action home.dismissPromo: /mutations: invalid_envelope"))
        let catalog = PageCatalog.load(directory: pages)
        #expect(!catalog.diagnostics.containsErrors)
        #expect(catalog.pages["feed"]?.page.sections.count == 15)
        #expect(catalog.pages["feed"]?.pageSize == 5)
    }

    @Test func aFileThatIsNotHARIsRefusedWithItsPathAndUsageErrorsExitTwo() async throws {
        let directory = try temporaryPages([
            "not.har": #"{"log": {"version": "1.2", "entries": [{"request": {"method": "GET"}, "response": {}}]}}"#
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bad = try await FlowBFFProcess.run(
            ["import", "har", "not.har", "--pages", "out"], directory: directory)
        #expect(bad.status == 1)
        #expect(bad.errors.contains("not.har: /log/entries/0/request/url: invalid_har: url is a string"))
        let missing = try await FlowBFFProcess.run(
            ["import", "har", "missing.har", "--pages", "out"], directory: directory)
        #expect(missing.status == 1)
        #expect(missing.errors.contains("missing.har: cannot read the file"))
        let noPages = try await FlowBFFProcess.run(["import", "har", "not.har"], directory: directory)
        #expect(noPages.status == 2)
        #expect(noPages.errors.contains("needs --pages DIR"))
        let unknown = try await FlowBFFProcess.run(
            ["import", "har", "not.har", "--pages", "out", "--bogus", "x"], directory: directory)
        #expect(unknown.status == 2)
        let help = try await FlowBFFProcess.run(["import", "--help"], directory: directory)
        #expect(help.status == 0)
        #expect(help.output.contains("--redact KEY"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/out"))
    }
}
