import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// `serve --upstream URL --record DIR` end to end: what an app fetched through the proxy becomes a folder that
/// flow-bff serves on its own and `flow-bff verify --pages` passes, and recording the same traffic again changes
/// nothing.
@Suite struct ProxyRecordingTests {
    /// What an app does: a page followed by its first chunk only (the recorder follows the rest), a page and one of
    /// its actions, a page with parameters.
    static func browse(_ http: HTTPTestClient) async throws {
        #expect(try await http.get("/v1/pages/feed").status == 200)
        #expect(try await http.get("/v1/pages/cart").status == 200)
        let removed = try await http.post(
            "/v1/actions/cart.remove.p-1042", json: #"{"pageID": "cart", "widgetID": "remove.p-1042", "event": "tap"}"#
        )
        #expect(removed.status == 200)
        #expect(try await http.get("/v1/pages/product?productID=p-1042").status == 200)
    }

    /// Every file of `directory` with its bytes and modification date.
    static func snapshot(_ directory: String) throws -> [String: (bytes: Data, modified: Date)] {
        var files: [String: (bytes: Data, modified: Date)] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let path = directory + "/" + name
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            files[name] = (try Data(contentsOf: URL(fileURLWithPath: path)), attributes[.modificationDate] as! Date)
        }
        return files
    }

    @Test func aRecordedFolderServesAndVerifiesOnItsOwn() async throws {
        let local = try ProxyLiveTests.localPages()
        let recorded = try temporaryPages([:]) + "/recorded"
        try await ProxyLiveTests.withUpstream { upstream in
            let upstreamFeed = try await ProxyLiveTests.sectionIDs(HTTPTestClient(port: upstream.port), "feed")
            let recording: (inout BFFConfiguration) -> Void = { $0.proxy.recordDirectory = recorded }
            try await ProxyLiveTests.withProxy(to: upstream.baseURL, pages: local, edit: recording) { proxy in
                let http = HTTPTestClient(port: proxy.port)
                try await Self.browse(http)
                let first = try Self.snapshot(recorded)
                #expect(Set(first.keys).isSuperset(of: ["feed.json", "cart.json", "product.json"]), "\(first.keys)")
                #expect(first["home.json"] == nil, "the local home was not forwarded, so not recorded")
                // Recording the same traffic again changes no byte and touches no file.
                try await Self.browse(http)
                let second = try Self.snapshot(recorded)
                #expect(Set(second.keys) == Set(first.keys))
                for (name, file) in first {
                    #expect(second[name]?.bytes == file.bytes, "\(name) is byte-identical")
                    #expect(second[name]?.modified == file.modified, "\(name) was not rewritten")
                }
            }
            // The folder loads with no error, and the recorded action answers the device like the upstream did.
            let catalog = PageCatalog.load(directory: recorded)
            #expect(catalog.diagnostics.filter { $0.diagnostic.severity == .error }.isEmpty, "\(catalog.diagnostics)")
            #expect(catalog.actions["cart.remove.p-1042"] != nil)
            try await withTestServer(pages: recorded, configuration: mockConfiguration()) { replay in
                let http = HTTPTestClient(port: replay.port)
                let feed = try await ProxyLiveTests.sectionIDs(http, "feed")
                #expect(feed.ids == upstreamFeed.ids, "all 48 sections, no upstream")
                #expect(feed.chunks == upstreamFeed.chunks, "cut into the chunks the upstream served")
                let answer = try await http.post(
                    "/v1/actions/cart.remove.p-1042",
                    json: #"{"pageID": "cart", "widgetID": "remove.p-1042", "event": "tap"}"#)
                #expect(answer.status == 200)
                let title = try json(try await http.get("/v1/pages/product?productID=p-1042"))["page"]?["title"]
                #expect(title == "Stoneware Espresso Cups, set of 4")
            }
        }
        let verify = try await FlowBFFProcess.run(["verify", "--pages", recorded], directory: local)
        #expect(verify.status == 0, "verify --pages of the recording:\n\(verify.output)\n\(verify.errors)")
    }

    @Test func theConfiguredKeysAreRedactedAndNormalisedInRecordings() async throws {
        let local = try ProxyLiveTests.localPages()
        let recorded = try temporaryPages([:]) + "/recorded"
        let rules: (inout BFFConfiguration) -> Void = {
            $0.proxy.recordDirectory = recorded
            $0.proxy.recordRedactKeys = ["subtitle"]
            $0.proxy.recordNormalizeKeys = ["price"]
        }
        try await ProxyLiveTests.withUpstream { upstream in
            try await ProxyLiveTests.withProxy(to: upstream.baseURL, pages: local, edit: rules) { proxy in
                let answer = try await HTTPTestClient(port: proxy.port).get("/v1/pages/feed")
                #expect(
                    try json(answer)["page"]?["sections"]?[0]?["widgets"]?[0]?["content"]?["price"] != "<normalized>")
            }
        }
        let feed = try String(contentsOfFile: recorded + "/feed.json", encoding: .utf8)
        #expect(!feed.contains(#": "€"#), "every price (a value starting with €) normalised")
        #expect(feed.contains(#""price" : "<normalized>""#) || feed.contains(#""price": "<normalized>""#))
        #expect(feed.contains("[redacted]"))
        #expect(!feed.contains("Week 1 selection"), "subtitles redacted")
    }
}
