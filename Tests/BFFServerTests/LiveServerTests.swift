import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// Real HTTP on loopback, port 0, against the bundled pages.
@Suite struct LiveServerTests {
    static let key = String(repeating: "test-cursor-key-", count: 3)

    func client(_ server: TestServer) -> HTTPTestClient { HTTPTestClient(port: server.port) }

    @Test func everySamplePageIsWalkedToTheEndWithEachSectionOnce() async throws {
        try await withTestServer(cursorKey: Self.key) { server in
            let http = client(server)
            let catalog = PageCatalog.load(directory: TestServer.bundledPages)
            var paginated = 0
            for load in catalog.firstLoads {
                let pageID = String(load.prefix { $0 != "?" })
                let first = try await http.get("/v1/pages/\(load)")
                #expect(first.status == 200)
                #expect(first.header("Content-Type") == "application/json")
                var page = try PageDecoder().decodePage(first.body).value
                var seen = page.sections.map(\.id)
                var requests = 0
                while let postback = page.pagination?.postback, page.hasMore, requests < 1_000 {
                    requests += 1
                    let target = "/v1/pages/\(pageID)/next?postback=\(postback)"
                    let next = try await http.get(target)
                    #expect(next.status == 200)
                    let replay = try await http.get(target)
                    #expect(replay.body == next.body, "replaying a postback returns the same chunk")
                    let chunk = try PageDecoder().decodeNextPage(next.body).value
                    seen += chunk.sections.map(\.id)
                    var diagnostics: [Diagnostic] = []
                    page = page.appending(chunk, diagnostics: &diagnostics)
                    #expect(diagnostics.isEmpty)
                }
                if requests > 0 { paginated += 1 }
                let expected = try #require(catalog.pages[pageID]).page.sections.map(\.id)
                #expect(seen == expected, "\(pageID): every section exactly once, in order")
                #expect(Set(seen).count == seen.count)
            }
            #expect(paginated >= 1, "the feed paginates")
        }
    }

    @Test func everyTamperedPostbackIsA400ProblemAndTheServerKeepsAnswering() async throws {
        try await withTestServer { server in
            let http = client(server)
            let page = try await PageDecoder().decodePage(try http.get("/v1/pages/feed").body).value
            let postback = Array(try #require(page.pagination?.postback).utf8)
            for index in postback.indices {
                var tampered = postback
                tampered[index] = tampered[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                let response = try await http.get(
                    "/v1/pages/feed/next?postback=\(String(decoding: tampered, as: UTF8.self))")
                #expect(response.status == 400)
                #expect(response.header("Content-Type") == "application/problem+json")
                let problem = try JSONDecoder().decode(ProblemDetails.self, from: Data(response.body))
                #expect(problem.code == "invalid_cursor")
            }
            #expect(try await http.get("/healthz").status == 200)
        }
    }

    @Test func aCursorForAnotherPageOrPastTheEndIsRejected() async throws {
        try await withTestServer(cursorKey: Self.key) { server in
            let http = client(server)
            let codec = CursorCodec(key: Self.key)
            let version = try #require(server.service.application.catalog.pages["feed"]).version
            let foreign = codec.encode(Cursor(pageID: "feed", version: version, position: 5))
            let wrongPage = try await http.get("/v1/pages/home/next?postback=\(foreign)")
            #expect(wrongPage.status == 400)
            #expect(wrongPage.text.contains("invalid_cursor"))
            let past = codec.encode(Cursor(pageID: "feed", version: version, position: 100_000))
            #expect(try await http.get("/v1/pages/feed/next?postback=\(past)").status == 400)
            let old = codec.encode(Cursor(pageID: "feed", version: "0000000000000000", position: 5))
            let expired = try await http.get("/v1/pages/feed/next?postback=\(old)")
            #expect(expired.status == 410)
            #expect(expired.text.contains("\"code\":\"cursor_expired\""))
            let posted = try await http.post("/v1/pages/feed/next", json: #"{"postback": "\#(foreign)"}"#)
            #expect(posted.status == 200)
            #expect(
                try await http.post("/v1/pages/feed/next", json: #"{"cursor": 1}"#).text.contains(
                    "\"path\":\"/postback\""))
        }
    }

    @Test(arguments: [
        "/v1/pages/..%2f..%2fetc%2fpasswd", "/v1/pages/%2e%2e", "/v1/pages/%2e%2e%2fconfig",
        "/v1/pages/..%252f..%252fpages",
        "/v1/pages/%252e%252e", "/v1/pages/home%00", "/v1/pages/..", "/v1/pages/.%2e/next?postback=x",
        "/v1/pages/home.json",
        "/v1/pages/%2fetc%2fpasswd",
    ])
    func traversalPageIDsAreRejected(_ target: String) async throws {
        try await withTestServer { server in
            let http = client(server)
            let response = try await http.get(target)
            #expect([400, 404].contains(response.status), "\(target) → \(response.status)")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(!response.text.contains("root:"))
            #expect(try await http.get("/v1/pages/home").status == 200)
        }
    }

    @Test func unknownPagesExplainTheNearMiss() async throws {
        try await withTestServer { server in
            let response = try await client(server).get("/v1/pages/hme")
            #expect(response.status == 404)
            let problem = try JSONDecoder().decode(ProblemDetails.self, from: Data(response.body))
            #expect(problem.code == "page_not_found")
            #expect(problem.detail.contains("Did you mean \"home\"?"))
        }
    }

    @Test func apiActionsAnswerAndBadBodiesGetStableCodes() async throws {
        try await withTestServer { server in
            let http = client(server)
            let catalog = server.service.application.catalog
            let name = try #require(catalog.actions.keys.sorted().first)
            let action = try #require(catalog.actions[name])
            let (pageID, widget, event) = try #require(Self.firing(name, in: catalog))
            let ok = try await http.post(
                "/v1/actions/\(name)",
                json: #"{"pageID": "\#(pageID)", "widgetID": "\#(widget.id)", "event": "\#(event)"}"#)
            #expect(ok.status == 200)
            #expect(try PageDecoder().decodeActionResponse(ok.body).value == action.response)
            // The request is checked against the page it names (docs/contract.md § 7).
            let otherEvent = event == "tap" ? "change" : "tap"
            let refused: [(String, Int, String, String)] = [
                (
                    #"{"pageID": "\#(pageID)", "widgetID": "no-such-widget", "event": "\#(event)"}"#, 400,
                    "unknown_widget", "/widgetID"
                ),
                (
                    #"{"pageID": "\#(pageID)", "widgetID": "\#(widget.id)", "event": "\#(otherEvent)"}"#, 400,
                    "undeclared_event", "/event"
                ),
                (
                    #"{"pageID": "no-such-page", "widgetID": "\#(widget.id)", "event": "\#(event)"}"#, 404,
                    "page_not_found", ""
                ),
            ]
            for (body, status, code, path) in refused
            where widget.actions[otherEvent] == nil || code != "undeclared_event" {
                let response = try await http.post("/v1/actions/\(name)", json: body)
                #expect(response.status == status, "\(body)")
                #expect(response.text.contains("\"code\":\"\(code)\""), "\(body): \(response.text)")
                #expect(path.isEmpty || response.text.contains("\"path\":\"\(path)\""), "\(response.text)")
            }
            let cases: [(String, String, [(String, String)], Int, String)] = [
                (
                    "/v1/actions/\(name)", #"{"pageID": "cart", "widgetID": "w", "event": "tap""#, [], 400,
                    "invalid_json"
                ),
                ("/v1/actions/\(name)", #"{"pageID": "cart", "event": "tap"}"#, [], 400, "invalid_request"),
                (
                    "/v1/actions/\(name)", #"{"pageID": "cart", "widgetID": "w", "event": "swipe"}"#, [], 400,
                    "invalid_request"
                ),
                ("/v1/actions/\(name)", #"[1, 2]"#, [], 400, "invalid_request"),
                (
                    "/v1/actions/no.such", #"{"pageID": "cart", "widgetID": "w", "event": "tap"}"#, [], 404,
                    "unknown_action"
                ),
                ("/v1/actions/\(name)", "pageID=cart", [("Content-Type", "text/plain")], 415, "unsupported_media_type"),
                (
                    "/v1/actions/\(name)", String(repeating: "[", count: 100) + String(repeating: "]", count: 100), [],
                    400, "invalid_json"
                ),
            ]
            for (target, body, headers, status, code) in cases {
                let response = try await http.request(
                    "POST", target, headers: headers.isEmpty ? [("Content-Type", "application/json")] : headers,
                    body: Array(body.utf8))
                #expect(response.status == status, "\(body)")
                #expect(response.header("Content-Type") == "application/problem+json")
                #expect(response.text.contains("\"code\":\"\(code)\""), "\(body): \(response.text)")
            }
            // A body without a Content-Type is not declared JSON: 415 like any other type (docs/contract.md § 13).
            let untyped = try await http.request(
                "POST", "/v1/actions/\(name)", headers: [],
                body: Array(#"{"pageID": "cart", "widgetID": "w", "event": "tap"}"#.utf8))
            #expect(untyped.status == 415)
            #expect(untyped.text.contains("\"code\":\"unsupported_media_type\""))
            #expect(untyped.text.contains("no Content-Type"))
            let missing = try await http.post("/v1/actions/\(name)", json: #"{"pageID": "cart", "event": "tap"}"#)
            #expect(missing.text.contains("\"path\":\"/widgetID\""))
            let huge =
                "{\"pageID\": \"cart\", \"widgetID\": \"w\", \"event\": \"tap\", \"payload\": \""
                + String(repeating: "x", count: 70_000) + "\"}"
            let oversize = try await http.post("/v1/actions/\(name)", json: huge)
            #expect(oversize.status == 413)
            #expect(try await HTTPTestClient(port: server.port).get("/healthz").status == 200)
        }
    }

    @Test func gzipETagAndNotModified() async throws {
        try await withTestServer { server in
            let http = client(server)
            let plain = try await http.get("/v1/pages/feed")
            let gzip = try await http.get("/v1/pages/feed", headers: [("Accept-Encoding", "gzip")])
            #expect(gzip.header("Content-Encoding") == "gzip")
            #expect(gzip.rawBody.count < plain.rawBody.count)
            #expect(gzip.body == plain.body)
            let etag = try #require(plain.header("ETag"))
            let again = try await http.get("/v1/pages/feed", headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            #expect(again.rawBody.isEmpty)
            let feed = try #require(server.service.application.catalog.pages["feed"])
            #expect(plain.header("Cache-Control") == feed.cacheControl)
        }
    }

    @Test func requestIDsAreEchoedAndAccessLogged() async throws {
        let log = MemoryLogSink()
        try await withTestServer(log: log) { server in
            let http = client(server)
            let response = try await http.get("/v1/pages/home", headers: [("X-Request-ID", "trace-123")])
            #expect(response.header("X-Request-ID") == "trace-123")
            let generated = try await http.get("/healthz")
            #expect(generated.header("X-Request-ID")?.count == 32)
            let line = try #require(log.lines.first { $0.contains("trace-123") })
            let entry = try PageDecoder().parse(Array(line.utf8))
            #expect(entry["method"] == "GET")
            #expect(entry["path"] == "/v1/pages/home")
            #expect(entry["route"] == "page")
            #expect(entry["status"] == 200)
            #expect(entry["bytes"]?.intValue == response.rawBody.count)
            #expect(entry["durationMs"]?.numberValue != nil)
        }
    }

    @Test func healthReadinessMetricsAndRouting() async throws {
        try await withTestServer { server in
            let http = client(server)
            #expect(try await http.get("/healthz").text == #"{"status":"ok"}"#)
            #expect(try await http.get("/readyz").text.contains("\"status\":\"ready\""))
            _ = try await http.get("/v1/pages/home")
            _ = try await http.get("/v1/pages/nope")
            let metrics = try await http.get("/metrics").text
            #expect(metrics.contains("flow_bff_requests_total{route=\"page\",status=\"200\"} 1"))
            #expect(metrics.contains("flow_bff_requests_total{route=\"page\",status=\"404\"} 1"))
            #expect(metrics.contains("flow_bff_request_duration_seconds_count{route=\"page\"} 2"))
            #expect(metrics.contains("flow_bff_open_connections 1"))
            #expect(metrics.contains("flow_bff_catalog_load_errors 0"))
            let unknown = try await http.get("/v1/pagez/home")
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("\"code\":\"not_found\""))
            let wrongMethod = try await http.request("DELETE", "/v1/pages/home")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow")?.contains("GET") == true)
            server.service.application.setReady(false)
            #expect(try await http.get("/readyz").status == 503)
        }
    }

    @Test func aReplicaContinuesACursorAnotherIssued() async throws {
        try await withTestServer(cursorKey: Self.key) { first in
            try await withTestServer(cursorKey: Self.key) { second in
                let page = try await PageDecoder().decodePage(client(first).get("/v1/pages/feed").body).value
                let postback = try #require(page.pagination?.postback)
                let onSecond = try await client(second).get("/v1/pages/feed/next?postback=\(postback)")
                #expect(onSecond.status == 200)
                let onFirst = try await client(first).get("/v1/pages/feed/next?postback=\(postback)")
                #expect(onSecond.body == onFirst.body)
            }
            try await withTestServer(cursorKey: String(repeating: "another-key-", count: 3)) {
                stranger in
                let page = try await PageDecoder().decodePage(client(first).get("/v1/pages/feed").body).value
                let postback = try #require(page.pagination?.postback)
                #expect(try await client(stranger).get("/v1/pages/feed/next?postback=\(postback)").status == 400)
            }
        }
    }

    @Test func aCursorIssuedBeforeThePageChangedIsExpiredAndOtherPagesKeepTheirs() async throws {
        func file(_ id: String, title: String) -> String {
            let sections = (0..<6).map {
                #"{"id": "s\#($0)", "widgets": [{"id": "w\#($0)", "type": "text", "content": {"text": "\#(title)"}}]}"#
            }
            return
                #"{"schemaVersion": 1, "kind": "page", "page": {"id": "\#(id)", "sections": [\#(sections.joined(separator: ","))]}, "server": {"pageSize": 2}}"#
        }
        let directory = try temporaryPages([
            "news.json": file("news", title: "v1"), "deals.json": file("deals", title: "v1"),
        ])
        try await withTestServer(pages: directory) { server in
            let http = client(server)
            let news = try #require(
                try await PageDecoder().decodePage(try http.get("/v1/pages/news").body).value.pagination?.postback)
            let deals = try #require(
                try await PageDecoder().decodePage(try http.get("/v1/pages/deals").body).value.pagination?.postback)
            #expect(try await http.get("/v1/pages/news/next?postback=\(news)").status == 200)
            // The news page is edited; deals is not.
            try Data(file("news", title: "v2").utf8).write(to: URL(fileURLWithPath: directory + "/news.json"))
            server.service.application.replaceCatalog(PageCatalog.load(directory: directory))
            let expired = try await http.get("/v1/pages/news/next?postback=\(news)")
            #expect(expired.status == 410)
            #expect(expired.header("Content-Type") == "application/problem+json")
            #expect(expired.text.contains("\"code\":\"cursor_expired\""))
            #expect(try await http.get("/v1/pages/deals/next?postback=\(deals)").status == 200)
            // A fresh first load issues cursors for the new version.
            let fresh = try #require(
                try await PageDecoder().decodePage(try http.get("/v1/pages/news").body).value.pagination?.postback)
            let chunk = try await http.get("/v1/pages/news/next?postback=\(fresh)")
            #expect(chunk.status == 200)
            #expect(chunk.text.contains("v2"))
        }
    }

    /// A page, widget and event of `catalog` that fire the api action `name`.
    static func firing(_ name: String, in catalog: PageCatalog) -> (String, Widget, String)? {
        func search(_ widgets: [Widget]) -> (Widget, String)? {
            for widget in widgets {
                for (event, action) in widget.actions.sorted(by: { $0.key < $1.key }) {
                    if case .api(let fired, _) = action, fired == name { return (widget, event) }
                }
                if let found = search(widget.children) { return found }
            }
            return nil
        }
        for pageID in catalog.pageIDs {
            let page = catalog.pages[pageID]!.page
            if let (widget, event) = search(page.header + page.sections.flatMap(\.widgets) + page.footer) {
                return (pageID, widget, event)
            }
        }
        return nil
    }
}

@Suite struct OpenAPIDocumentTests {
    @Test func theServedDocumentIsTheOneInTheRepository() async throws {
        let file = try String(contentsOfFile: repositoryRoot + "/docs/openapi.json", encoding: .utf8)
        try await withTestServer { server in
            let served = try await HTTPTestClient(port: server.port).get("/openapi.json")
            #expect(served.status == 200)
            #expect(served.text == file, "the served document is docs/openapi.json (the EmbedFiles plugin)")
            let document = try PageDecoder().parse(served.body)
            #expect(document["openapi"] == "3.1.0")
            let paths = try #require(document["paths"]?.objectValue).keys
            #expect(
                paths == [
                    "/v1/pages", "/v1/pages/{pageID}", "/v1/pages/{pageID}/next", "/v1/actions/{name}", "/healthz",
                    "/readyz",
                    "/metrics",
                    "/openapi.json", "/", "/__admin/status", "/__admin/reload", "/__admin/reset", "/__admin/scenarios",
                    "/__admin/faults", "/__admin/sessions", "/__admin/sessions/{sessionID}",
                    "/__admin/sessions/{sessionID}/faults", "/__admin/journal", "/__admin/journal/count",
                    "/__admin/proxy", "/__admin/proxy/pages/{pageID}", "/__admin/stubs",
                    "/__admin/stubs/pages/{pageID}",
                    "/__admin/stubs/actions/{name}", "/__admin/stubs/data/{name}", "/__admin/echo", "/__preview",
                    "/__preview/{asset}", "/__preview/events",
                ])
        }
    }
}
