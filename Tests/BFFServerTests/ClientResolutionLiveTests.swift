import BFFServer
import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Testing

/// Client capabilities and localization over real HTTP against the bundled pages: every profile in
/// `config/capability-profiles.json` crawls every page without meeting a widget it cannot render.
@Suite struct ClientResolutionLiveTests {
    static let profiles: [CapabilityProfile] = {
        var url = URL(fileURLWithPath: TestServer.bundledPages)
        url.deleteLastPathComponent()
        let bytes = FileManager.default.contents(atPath: url.path + "/config/capability-profiles.json")!
        return try! CapabilityProfile.load(Array(bytes))
    }()

    /// Every `Vary` field value, joined (the prepared body adds its own `Vary: Accept-Encoding` line).
    static func vary(_ response: HTTPTestClient.Response) -> String {
        response.headers.filter { $0.name.lowercased() == "vary" }.map(\.value).joined(separator: " | ")
    }

    @Test func everyProfileCrawlsEveryPageWithoutAnUnrenderableWidget() async throws {
        #expect(Self.profiles.map(\.name) == ["current", "legacy", "minimal"])
        try await withTestServer { server in
            let http = HTTPTestClient(port: server.port)
            var degradedBy: [String: Int] = [:]
            for profile in Self.profiles {
                let headers = [("X-Flow-Client", profile.header)]
                for load in server.service.application.catalog.firstLoads {
                    let pageID = String(load.prefix { $0 != "?" })
                    let first = try await http.get("/v1/pages/\(load)", headers: headers)
                    #expect(first.status == 200)
                    var page = try PageDecoder().decodePage(first.body).value
                    let problems = CapabilityCheck.problems(in: page, for: profile.capabilities)
                    #expect(problems.isEmpty, "\(profile.name) \(pageID): \(problems)")
                    degradedBy[profile.name, default: 0] += Degradation.list(inEnvelope: first.body).count
                    #expect(try JSONParser().parse(first.body)["degradations"] != nil)
                    var requests = 0
                    while let postback = page.pagination?.postback, page.hasMore, requests < 100 {
                        requests += 1
                        let next = try await http.get("/v1/pages/\(pageID)/next?postback=\(postback)")
                        let chunk = try PageDecoder().decodeNextPage(next.body).value
                        #expect(CapabilityCheck.problems(in: chunk.sections, for: profile.capabilities).isEmpty)
                        var diagnostics: [Diagnostic] = []
                        page = page.appending(chunk, diagnostics: &diagnostics)
                    }
                }
            }
            #expect(degradedBy["current"] == 0)
            #expect((degradedBy["legacy"] ?? 0) > 0)
            #expect((degradedBy["minimal"] ?? 0) > degradedBy["legacy"] ?? 0)
        }
    }

    @Test func profilesGetTheirOwnETagsAnd304sAndTheFastPathIsUnchanged() async throws {
        try await withTestServer { server in
            let http = HTTPTestClient(port: server.port)
            let plain = try await http.get("/v1/pages/home")
            #expect(Self.vary(plain).contains("X-Flow-Client"))
            #expect(try JSONParser().parse(plain.body)["degradations"] == nil)
            var etags: Set<String> = [try #require(plain.header("ETag"))]
            for profile in Self.profiles {
                let headers = [("X-Flow-Client", profile.header)]
                let response = try await http.get("/v1/pages/home", headers: headers)
                let etag = try #require(response.header("ETag"))
                etags.insert(etag)
                let again = try await http.get("/v1/pages/home", headers: headers + [("If-None-Match", etag)])
                #expect(again.status == 304)
            }
            #expect(etags.count == 4, "plain, current, legacy and minimal differ")
            let legacy = try #require(Self.profiles.first { $0.name == "legacy" })
            let body = try await http.get("/v1/pages/cart", headers: [("X-Flow-Client", legacy.header)]).body
            let degradations = Degradation.list(inEnvelope: body)
            #expect(degradations.contains { $0.code == "widget_replaced" && $0.widgetID == "qty.p-1042" })
            let cart = try PageDecoder().decodePage(body).value
            #expect(cart.sections[0].widgets.first { $0.id == "qty.p-1042" }?.type == "key_value")
            let bad = try await http.get("/v1/pages/home", headers: [("X-Flow-Client", "version=banana")])
            #expect(bad.status == 400 && bad.text.contains("invalid_client_header"))
        }
    }

    @Test func cursorsKeepTheProfileOfTheirFirstPage() async throws {
        try await withTestServer { server in
            let http = HTTPTestClient(port: server.port)
            let minimal = try #require(Self.profiles.first { $0.name == "minimal" })
            let first = try await http.get("/v1/pages/feed", headers: [("X-Flow-Client", minimal.header)])
            let postback = try #require(try PageDecoder().decodePage(first.body).value.pagination?.postback)
            // The next request sends no header: the cursor alone decides how the chunk is resolved.
            let next = try await http.get("/v1/pages/feed/next?postback=\(postback)")
            let chunk = try PageDecoder().decodeNextPage(next.body).value
            #expect(!chunk.sections.isEmpty)
            #expect(CapabilityCheck.problems(in: chunk.sections, for: minimal.capabilities).isEmpty)
            // Resolved for minimal, which has no product_card: the cards fell back to list_row.
            #expect(Degradation.list(inEnvelope: next.body).contains { $0.code == "widget_generalized" })
            #expect(chunk.sections.flatMap(\.widgets).allSatisfy { $0.type == "list_row" })
        }
    }

    @Test func localizedPageIsServedInTwoLocalesWithFallback() async throws {
        try await withTestServer { server in
            let http = HTTPTestClient(port: server.port)
            func title(_ response: HTTPTestClient.Response) throws -> String? {
                try PageDecoder().decodePage(response.body).value.title
            }
            let plain = try await http.get("/v1/pages/checkout")
            #expect(try title(plain) == "Checkout")
            #expect(plain.header("Content-Language") == "en")
            #expect(Self.vary(plain).contains("X-Flow-Client, Accept-Language"))
            let german = try await http.get(
                "/v1/pages/checkout", headers: [("Accept-Language", "de-DE,de;q=0.9,en;q=0.5")])
            #expect(try title(german) == "Kasse")
            #expect(german.header("Content-Language") == "de")
            #expect(try JSONParser().parse(german.body)["locale"] == "de")
            #expect(german.header("ETag") != plain.header("ETag"))
            let etag = try #require(german.header("ETag"))
            #expect(
                try await http.get("/v1/pages/checkout", headers: [("Accept-Language", "de"), ("If-None-Match", etag)])
                    .status
                    == 304)
            let french = try await http.get("/v1/pages/checkout", headers: [("Accept-Language", "fr-FR")])
            #expect(try title(french) == "Checkout")
            #expect(french.header("Content-Language") == "en")
            #expect(french.body == plain.body, "an unavailable locale is the default, fast-path body")
            #expect(!german.text.contains("$l10n:") && !plain.text.contains("$l10n:"))
        }
    }

    @Test func aMissingStringKeyIsALoadError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("l10n-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = #"""
            {"schemaVersion":1,"kind":"page","page":{"id":"x","title":"$l10n:title","sections":[{"id":"s","widgets":[{"id":"t","type":"text","content":{"text":"$l10n:nope"}}]}]},
             "server":{"defaultLocale":"en","strings":{"en":{"title":"Hi"},"de":{"title":"Hallo"}}}}
            """#
        try Data(file.utf8).write(to: directory.appendingPathComponent("x.json"))
        let catalog = PageCatalog.load(directory: directory.path)
        #expect(catalog.pages.isEmpty)
        #expect(catalog.diagnostics.map(\.diagnostic.code) == ["unknown_string_key"])
        #expect(catalog.diagnostics.first?.diagnostic.path == "/page/sections/0/widgets/0/content/text")
    }
}
