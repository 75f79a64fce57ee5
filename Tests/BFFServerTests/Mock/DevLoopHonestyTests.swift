import BFFServer
import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Testing

/// Dev-loop honesty (docs/mock.md): a page served at its last good version says so (`X-Flow-Mock-Stale`), a page
/// whose file never loaded answers `404 page_file_invalid` with the file's error, per-session and per-scenario
/// answers are `no-store`, and `GET /` lists what the mock serves.
@Suite struct DevLoopHonestyTests {
    static let origin = "http://localhost:5173"

    /// Every `Vary` field of `response`, joined.
    static func vary(_ response: HTTPTestClient.Response) -> String {
        response.headers.values(for: "Vary").joined(separator: ", ")
    }

    /// Replaces `file` in `pages` and reloads now (the watcher is off in ``mockConfiguration(_:)``).
    static func write(_ text: String, to file: String, in pages: String, http: HTTPTestClient) async throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: pages + "/" + file))
        let reload = try await http.post("/__admin/reload", json: "")
        #expect(reload.status == 200)
    }

    @Test func aPageServedAtItsLastGoodVersionNamesTheErrorOnEveryResponse() async throws {
        let good = listPage("list", sections: 3, pageSize: 1)
        let pages = try temporaryPages(["list.json": good, "list.empty.json": listPage("list", sections: 1)])
        try await withTestServer(pages: pages, configuration: mockConfiguration()) { server in
            let http = HTTPTestClient(port: server.port)
            #expect(try await http.get("/v1/pages/list").header("X-Flow-Mock-Stale") == nil)

            // A syntax error: the position in the file.
            try await Self.write("{\n  \"schemaVersion\": 1,\n  \"kind\": }\n", to: "list.json", in: pages, http: http)
            let first = try await http.get("/v1/pages/list", headers: [("Origin", Self.origin)])
            #expect(first.status == 200)
            #expect(try PageDecoder().decodePage(first.body).value.title == "item")
            #expect(first.header("X-Flow-Mock-Stale") == "list.json: 3:11: invalid_json")
            #expect(first.header("Access-Control-Expose-Headers")?.contains("X-Flow-Mock-Stale") == true)
            let etag = try #require(first.header("ETag"))
            let notModified = try await http.get("/v1/pages/list", headers: [("If-None-Match", etag)])
            #expect(notModified.status == 304)
            #expect(notModified.header("X-Flow-Mock-Stale") == "list.json: 3:11: invalid_json")
            let head = try await http.request("HEAD", "/v1/pages/list")
            #expect(head.header("X-Flow-Mock-Stale") == "list.json: 3:11: invalid_json")
            let postback = try #require(json(first)["page"]?["pagination"]?["postback"]?.stringValue)
            let next = try await http.get(
                "/v1/pages/list/next?postback="
                    + postback.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(next.status == 200)
            #expect(next.header("X-Flow-Mock-Stale") == "list.json: 3:11: invalid_json")
            // The scenario's own file is fine: its answer is not stale.
            let scenario = try await http.get("/v1/pages/list?__scenario=empty")
            #expect(scenario.header("X-Flow-Scenario") == "empty")
            #expect(scenario.header("X-Flow-Mock-Stale") == nil)

            let badSetting = good.replacingOccurrences(of: #""pageSize": 1"#, with: #""pageSize": -1"#)
            try await Self.write(badSetting, to: "list.json", in: pages, http: http)
            let stale = try await http.get("/v1/pages/list").header("X-Flow-Mock-Stale")
            // A content error: where the value its JSON Pointer names starts (as `flow-bff check` prints it).
            let value = try #require(badSetting.range(of: #""pageSize": -1"#)).upperBound
            let column = badSetting.unicodeScalars.distance(from: badSetting.startIndex, to: value) - 1
            #expect(stale == "list.json: 1:\(column): invalid_setting")

            // Fixed: no header.
            try await Self.write(good, to: "list.json", in: pages, http: http)
            #expect(try await http.get("/v1/pages/list").header("X-Flow-Mock-Stale") == nil)
        }
    }

    @Test func aPageWhoseFileNeverLoadedAnswers404WithTheFilesError() async throws {
        let pages = try temporaryPages(["list.json": listPage("list", sections: 1)])
        try await withTestServer(pages: pages, configuration: mockConfiguration()) { server in
            let http = HTTPTestClient(port: server.port)
            try await Self.write("{\"schemaVersion\": 1,", to: "fresh.json", in: pages, http: http)
            let response = try await http.get("/v1/pages/fresh")
            #expect(response.status == 404)
            let problem = try json(response)
            #expect(problem["code"] == "page_file_invalid")
            let detail = try #require(problem["detail"]?.stringValue)
            #expect(detail.contains("fresh.json: 1:21: invalid_json"), "\(detail)")
            #expect(problem["diagnostics"]?[0]?["code"] == "invalid_json")
            // So does a scenario whose file never loaded, instead of the page with X-Flow-Scenario-Missing.
            try await Self.write("{\"kind\": \"page\"}", to: "list.broken.json", in: pages, http: http)
            let scenario = try await http.get("/v1/pages/list", headers: [("X-Flow-Scenario", "broken")])
            #expect(scenario.status == 404)
            let scenarioProblem = try json(scenario)
            #expect(scenarioProblem["code"] == "page_file_invalid")
            #expect(scenarioProblem["detail"]?.stringValue?.contains("list.broken.json: ") == true)
            #expect(try await http.get("/v1/pages/list", headers: [("X-Flow-Scenario", "nope")]).status == 200)
            // A page with no file at all is still page_not_found.
            #expect(try await json(http.get("/v1/pages/nothing"))["code"] == "page_not_found")
        }
    }

    /// A client's HTTP cache must not answer for the mock: a page that production lets caches keep for minutes
    /// (`feed`: `public, max-age=300`) is `no-cache` in mock mode — kept, but revalidated on every use, so a fault
    /// header, a session's first request, a scenario or a reload reaches the server — and varies on the mock's
    /// request headers, first load and next chunk alike. Production keeps the page's own caching.
    @Test func aClientCacheCannotAnswerForTheMock() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let first = try await http.get("/v1/pages/feed")
            #expect(first.status == 200)
            #expect(first.header("Cache-Control") == "no-cache")
            let vary = first.headers.values(for: "Vary").joined(separator: ", ")
            for name in ["X-Flow-Client", "X-Flow-Session", "X-Flow-Scenario", "X-Flow-Mock", "Cookie"] {
                #expect(vary.contains(name), "Vary: \(vary)")
            }
            let postback = try #require(json(first)["page"]?["pagination"]?["postback"]?.stringValue)
            let next = try await http.get(
                "/v1/pages/feed/next?postback="
                    + postback.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(next.status == 200)
            #expect(next.header("Cache-Control") == "no-cache")
            #expect(next.headers.values(for: "Vary").joined(separator: ", ").contains("X-Flow-Mock"))
            // Revalidation still costs a 304, not the page.
            let etag = try #require(first.header("ETag"))
            #expect(try await http.get("/v1/pages/feed", headers: [("If-None-Match", etag)]).status == 304)
        }
        try await withTestApplication { http in
            let production = try await http.get("/v1/pages/feed")
            #expect(production.header("Cache-Control") == "public, max-age=300")
            #expect(!production.headers.values(for: "Vary").joined(separator: ", ").contains("X-Flow-Mock"))
        }
    }

    @Test func sessionAndScenarioAnswersAreNoStoreAndVaryOnTheirHeaders() async throws {
        let pages = try temporaryPages([
            "list.json": listPage("list", sections: 3, pageSize: 1), "list.empty.json": listPage("list", sections: 1),
        ])
        try await withTestServer(pages: pages, configuration: mockConfiguration()) { server in
            let http = HTTPTestClient(port: server.port)
            let plain = try await http.get("/v1/pages/list")
            #expect(plain.header("Cache-Control") == "no-cache")
            #expect(Self.vary(plain).contains("X-Flow-Session") && Self.vary(plain).contains("X-Flow-Mock"))

            let session = try await http.get("/v1/pages/list", headers: [("X-Flow-Session", "ui-1")])
            #expect(session.header("Cache-Control") == "no-store")
            let vary = Self.vary(session)
            #expect(
                vary.contains("X-Flow-Client") && vary.contains("X-Flow-Session") && vary.contains("X-Flow-Scenario"))
            let postback = try #require(json(session)["page"]?["pagination"]?["postback"]?.stringValue)
            let next = try await http.get(
                "/v1/pages/list/next?postback=" + postback.addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics)!,
                headers: [("X-Flow-Session", "ui-1")])
            #expect(next.header("Cache-Control") == "no-store")

            for headers in [[("X-Flow-Scenario", "empty")], [("Cookie", "flow_session=ui-2")]] {
                let response = try await http.get("/v1/pages/list", headers: headers)
                #expect(response.header("Cache-Control") == "no-store", "\(headers)")
                #expect(Self.vary(response).contains("X-Flow-Session"))
            }
            let query = try await http.get("/v1/pages/list?__scenario=empty")
            #expect(query.header("Cache-Control") == "no-store")
            // A scenario the page does not have: still an answer for that request only.
            let missing = try await http.get("/v1/pages/list", headers: [("X-Flow-Scenario", "nope")])
            #expect(missing.header("X-Flow-Scenario-Missing") == "nope")
            #expect(missing.header("Cache-Control") == "no-store")
        }
    }

    @Test func theIndexListsPagesActionsAndAdminLinksAsJSONOrHTML() async throws {
        let pages = try temporaryPages([
            "list.json": listPage("list", sections: 1, action: "list.remove"),
            "list.empty.json": listPage("list", sections: 1),
        ])
        try await withTestServer(pages: pages, configuration: mockConfiguration()) { server in
            let http = HTTPTestClient(port: server.port)
            try await Self.write("[", to: "broken.json", in: pages, http: http)
            let response = try await http.get("/", headers: [("Accept", "application/json")])
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Cache-Control") == "no-store")
            let index = try json(response)
            #expect(index["pages"]?[0]?["id"] == "list")
            #expect(index["pages"]?[0]?["href"] == "/v1/pages/list")
            #expect(index["pages"]?[0]?["preview"] == "/__preview?page=list")
            #expect(index["pages"]?[0]?["scenarios"]?[0]?["name"] == "empty")
            #expect(index["actions"]?[0]?["name"] == "list.remove")
            #expect(index["brokenFiles"]?[0]?["file"] == "broken.json")
            let admin = index["admin"]?.arrayValue?.compactMap { $0["href"]?.stringValue } ?? []
            #expect(admin.contains("/__admin/status") && admin.contains("/__admin/journal"))
            // curl (Accept: */*) gets JSON too.
            #expect(try await http.get("/").header("Content-Type") == "application/json")

            let browser = try await http.get(
                "/", headers: [("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")])
            #expect(browser.header("Content-Type") == "text/html; charset=utf-8")
            #expect(browser.text.contains(#"<a href="/v1/pages/list">list</a>"#))
            #expect(browser.text.contains(#"<a href="/__preview?page=list">preview</a>"#))
            #expect(browser.text.contains(#"<a href="/__admin/status">/__admin/status</a>"#))
            #expect(browser.text.contains("list.remove"))
            #expect(try await http.request("POST", "/").status == 405)
        }
        // Production: no index.
        var production = BFFConfiguration()
        production.logging.accessLog = false
        let good = try temporaryPages(["list.json": listPage("list", sections: 1)])
        try await withTestServer(pages: good, configuration: production) { server in
            let response = try await HTTPTestClient(port: server.port).get("/")
            #expect(response.status == 404)
            #expect(try json(response)["code"] == "not_found")
        }
    }
}
