import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// Sessions, scenarios, the journal, the admin API and the echo endpoint on a live server.
@Suite struct MockStateTests {
    static let scenarioFiles = [
        "cart.empty.json":
            #"{"schemaVersion": 1, "kind": "page", "page": {"id": "cart", "title": "Cart", "sections": []}}"#,
        "cart.logged-out.json":
            #"{"status": 401, "code": "unauthenticated", "title": "Signed out", "detail": "Sign in again."}"#,
        "list.json": listPage("list", sections: 5, action: "list.remove"),
        "list.long.json": listPage("list", sections: 9, pageSize: 4, text: "long"),
    ]

    func page(_ response: HTTPTestClient.Response) throws -> PageModel {
        try PageDecoder().decodePage(response.body).value
    }

    func widgetIDs(_ page: PageModel) -> [String] { page.sections.flatMap { $0.widgets.map(\.id) } }

    /// Loads `pageID` and every next chunk; returns the section ids.
    func walk(_ http: some HTTPRequestSending, _ pageID: String, headers: [(String, String)]) async throws -> [String] {
        var current = try await page(http.get("/v1/pages/\(pageID)", headers: headers))
        var ids = current.sections.map(\.id)
        var requests = 0
        while let postback = current.pagination?.postback, current.hasMore, requests < 50 {
            requests += 1
            let next = try await http.get("/v1/pages/\(pageID)/next?postback=\(postback)", headers: headers)
            #expect(next.status == 200, "\(next.text)")
            let chunk = try PageDecoder().decodeNextPage(next.body).value
            ids += chunk.sections.map(\.id)
            var diagnostics: [Diagnostic] = []
            current = current.appending(chunk, diagnostics: &diagnostics)
        }
        return ids
    }

    @Test func aSessionsCartChangesAfterAnActionAndOthersDoNot() async throws {
        let pages = try copyOfBundledPages(adding: Self.scenarioFiles)
        try await withTestApplication(pages: pages, configuration: mockConfiguration()) { http in
            let alice = [("X-Flow-Session", "alice")]
            let before = try await http.get("/v1/pages/cart", headers: alice)
            #expect(widgetIDs(try page(before)).contains("line.p-1042"))
            let removed = try await http.post(
                "/v1/actions/cart.remove.p-1042",
                json: #"{"pageID": "cart", "widgetID": "remove.p-1042", "event": "tap"}"#,
                headers: alice)
            #expect(removed.status == 200)
            let after = try await http.get("/v1/pages/cart", headers: alice)
            #expect(!widgetIDs(try page(after)).contains("line.p-1042"))
            #expect(after.header("ETag") != before.header("ETag"))
            let viaCookie = try await http.get(
                "/v1/pages/cart", headers: [("Cookie", "theme=dark; flow_session=alice")])
            #expect(viaCookie.body == after.body)
            let revalidated = try await http.get(
                "/v1/pages/cart", headers: alice + [("If-None-Match", after.header("ETag")!)])
            #expect(revalidated.status == 304)
            for other in [[("X-Flow-Session", "bob")], []] {
                #expect(try await http.get("/v1/pages/cart", headers: other).body == before.body, "\(other)")
            }
            // The session copy paginates with its own cursors.
            #expect(try await walk(http, "list", headers: alice) == ["s0", "s1", "s2", "s3", "s4"])
            _ = try await http.post(
                "/v1/actions/list.remove", json: #"{"pageID": "list", "widgetID": "remove", "event": "tap"}"#,
                headers: alice)
            let changed = try await page(try http.get("/v1/pages/list", headers: alice))
            #expect(widgetIDs(changed) == ["remove", "w1"])
            #expect(try await walk(http, "list", headers: alice) == ["s0", "s1", "s2", "s3", "s4"])
            let status = try await json(try http.get("/__admin/sessions/alice"))
            #expect(status["changedPages"] == ["cart", "list"])
            #expect(status["actions"] == 2)
            // Reset: one session, then everything.
            #expect(
                try await http.request("DELETE", "/__admin/sessions/alice", headers: [("X-Flow-Admin", "1")]).status
                    == 200)
            #expect(try await http.get("/v1/pages/cart", headers: alice).body == before.body)
            _ = try await http.post(
                "/v1/actions/cart.remove.p-1042",
                json: #"{"pageID": "cart", "widgetID": "remove.p-1042", "event": "tap"}"#,
                headers: [("X-Flow-Session", "bob")])
            #expect(try await http.get("/v1/pages/cart", headers: [("X-Flow-Session", "bob")]).body != before.body)
            #expect(try await http.request("POST", "/__admin/reset", headers: [("X-Flow-Admin", "1")]).status == 200)
            #expect(try await http.get("/v1/pages/cart", headers: [("X-Flow-Session", "bob")]).body == before.body)
            #expect(try await http.get("/__admin/sessions/bob").status == 404)
            let invalid = try await http.get("/v1/pages/cart", headers: [("X-Flow-Session", "a b")])
            #expect(invalid.status == 400)
            #expect(invalid.text.contains("invalid_session"))
        }
    }

    @Test func scenariosPerRequestAndPerSession() async throws {
        let pages = try copyOfBundledPages(adding: Self.scenarioFiles)
        try await withTestApplication(pages: pages, configuration: mockConfiguration()) { http in
            let empty = try await http.get("/v1/pages/cart", headers: [("X-Flow-Scenario", "empty")])
            #expect(empty.status == 200)
            #expect(empty.header("X-Flow-Scenario") == "empty")
            #expect(try page(empty).isEmpty)
            let signedOut = try await http.get("/v1/pages/cart?__scenario=logged-out")
            #expect(signedOut.status == 401)
            #expect(signedOut.text.contains("\"code\":\"unauthenticated\""))
            let typo = try await http.get("/v1/pages/cart", headers: [("X-Flow-Scenario", "emtpy")])
            #expect(typo.status == 200)
            #expect(typo.header("X-Flow-Scenario-Missing") == "emtpy")
            // A scenario paginates; the cursor alone selects the variant.
            #expect(try await walk(http, "list", headers: [("X-Flow-Scenario", "long")]).count == 9)
            let long = try await page(try http.get("/v1/pages/list?__scenario=long"))
            let postback = try #require(long.pagination?.postback)
            #expect(try await http.get("/v1/pages/list/next?postback=\(postback)").status == 200)
            // Per session through the admin API.
            let choose = try await http.request(
                "PUT", "/__admin/sessions/ui-test-1",
                headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(#"{"scenarios": {"cart": "empty"}}"#.utf8))
            #expect(choose.status == 200)
            let session = [("X-Flow-Session", "ui-test-1")]
            #expect(try await page(try http.get("/v1/pages/cart", headers: session)).isEmpty)
            #expect(try await !page(try http.get("/v1/pages/home", headers: session)).isEmpty)
            #expect(try await !page(try http.get("/v1/pages/cart")).isEmpty)
            let everywhere = try await http.request(
                "PUT", "/__admin/sessions/ui-test-1",
                headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(#"{"scenarios": {"*": "logged-out"}}"#.utf8))
            #expect(everywhere.status == 200)
            #expect(try await http.get("/v1/pages/cart", headers: session).status == 401)
            let home = try await http.get("/v1/pages/home", headers: session)
            #expect(home.status == 200, "home has no such scenario")
            #expect(home.header("X-Flow-Scenario-Missing") == nil, "* only applies where the scenario exists")
            let unknown = try await http.request(
                "PUT", "/__admin/sessions/ui-test-1",
                headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(#"{"scenarios": {"cart": "emtpy"}}"#.utf8))
            #expect(unknown.status == 400)
            #expect(unknown.text.contains("Did you mean \\\"empty\\\"?"))
            let listed = try await json(try http.get("/__admin/scenarios"))
            #expect(listed["pages"]?["cart"] == ["empty", "logged-out"])
        }
    }

    @Test func theJournalStaysBoundedAndExplainsNearMisses() async throws {
        try await withTestServer(configuration: mockConfiguration { $0.journalCapacity = 500 }) { server in
            let http = HTTPTestClient(port: server.port)
            for index in 0..<10_000 {
                let headers = index % 4 == 0 ? [("X-Flow-Session", "tagged")] : []
                #expect(try await http.get("/healthz", headers: headers).status == 200)
            }
            _ = try await http.get("/v1/pages/hme", headers: [("X-Flow-Session", "typo")])
            _ = try await http.post(
                "/v1/actions/cart.ad", json: #"{"pageID": "product", "widgetID": "w", "event": "tap"}"#,
                headers: [("X-Flow-Session", "typo"), ("Authorization", "Bearer secret")])
            let journal = try await json(try http.get("/__admin/journal"))
            #expect(journal["capacity"] == 500)
            #expect(journal["count"] == 500)
            #expect(journal["recorded"] == 10_002)
            #expect(journal["dropped"] == 9_502)
            #expect(journal["entries"]?.arrayValue?.count == 500)
            let tagged = try await json(try http.get("/__admin/journal?session=tagged&limit=5"))
            #expect(tagged["entries"]?.arrayValue?.count == 5)
            let misses = try await #require(
                try json(try http.get("/__admin/journal?session=typo"))["entries"]?.arrayValue)
            #expect(misses.count == 2)
            #expect(misses[0]["status"] == 404)
            #expect(misses[0]["problem"] == "page_not_found")
            #expect(misses[0]["detail"]?.stringValue?.contains("Did you mean \"home\"?") == true)
            #expect(misses[1]["problem"] == "unknown_action")
            #expect(misses[1]["detail"]?.stringValue?.contains("Did you mean \"cart.add\"?") == true)
            #expect(misses[1]["bodySHA256"]?.stringValue?.count == 16)
            let authorization = misses[1]["headers"]?.arrayValue?.first { $0[0] == "Authorization" }
            #expect(authorization?[1] == "[redacted]")
            #expect(
                try await http.request("DELETE", "/__admin/journal", headers: [("X-Flow-Admin", "1")]).status == 200)
            #expect(try await json(try http.get("/__admin/journal"))["count"] == 0)
        }
    }

    @Test(arguments: [
        "/v1/pages/%2F__admin%2Fstatus", "/%5F%5Fadmin/status", "/%5f%5fadmin/status", "/__admin%2Fstatus",
        "//__admin/status", "/v1/../__admin/status", "/v1/pages/..%2F__admin%2Fstatus", "/__ADMIN/status",
        "/v1/pages/__admin", "/v1/pages/%5F%5Fadmin/next?postback=x", "/__admin/status/", "/__admin",
    ])
    func theAdminAPIIsNotReachableThroughAnotherSpelling(_ target: String) async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let response = try await HTTPTestClient(port: server.port).get(target)
            #expect(response.status != 200, "\(target)")
            #expect(!response.text.contains("catalogVersion"))
        }
    }

    @Test func statusAndEcho() async throws {
        let token = "a-long-admin-token-for-tests"
        try await withTestServer(configuration: mockConfiguration { $0.adminToken = token }) { server in
            let status = try await json(try HTTPTestClient(port: server.port).get("/__admin/status"))
            #expect(status["mock"] == true, "loopback needs no token")
            #expect(status["reload"]?["watch"] == "off")
            let raw = await rawExchange(
                port: server.port,
                "PATCH /__admin/echo?x=1&y=%20 HTTP/1.1\r\nHost: phone.localhost\r\nX-B: 2\r\nx-a: one, two\r\n"
                    + "Connection: close\r\nContent-Length: 6\r\n\r\nh\u{e9}llo")
            let parts = raw.text.components(separatedBy: "\r\n\r\n")
            #expect(parts[0].hasPrefix("HTTP/1.1 200 "))
            #expect(parts[0].lowercased().contains("content-length: "))
            let echo = try JSONParser().parse(Array(parts[1].utf8))
            #expect(echo["method"] == "PATCH")
            #expect(echo["target"] == "/__admin/echo?x=1&y=%20")
            #expect(echo["version"] == "HTTP/1.1")
            #expect(
                echo["headers"]
                    == [
                        ["Host", "phone.localhost"], ["X-B", "2"], ["x-a", "one, two"], ["Connection", "close"],
                        ["Content-Length", "6"],
                    ])
            #expect(echo["body"] == "héllo")
            #expect(echo["bodyBytes"] == 6)
            #expect(echo["bodyBase64"] == "aMOpbGxv")
        }
    }
}
