import BFFServer
import BFFTesting
import Dispatch
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Synchronization
import Testing

/// The proxy in front of a real backend, end to end: a second flow-bff in its production configuration is the
/// upstream, the proxy is a mock-mode flow-bff with one local page, and every request goes over loopback sockets.
@Suite struct ProxyLiveTests {
    /// The production upstream (mock off) serving `pages`, or the bundled pages.
    static func withUpstream<Result>(
        pages: String? = nil, catalog: PageCatalog? = nil, _ body: (TestServer) async throws -> Result
    ) async throws -> Result {
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        return try await withTestServer(pages: pages, configuration: configuration, catalog: catalog, body)
    }

    /// A mock-mode proxy to `upstream` serving the local `pages`.
    static func withProxy<Result>(
        to upstream: String, pages: String, edit: (inout BFFConfiguration) -> Void = { _ in },
        _ body: (TestServer) async throws -> Result
    ) async throws -> Result {
        var configuration = mockConfiguration()
        configuration.proxy.upstream = upstream
        edit(&configuration)
        return try await withTestServer(pages: pages, configuration: configuration, body)
    }

    /// The local folder: a `home` of its own (one section, with a `home.dismissPromo` of its own), nothing else.
    static func localPages() throws -> String {
        try temporaryPages(["home.json": listPage("home", sections: 1, text: "local home", action: "home.dismissPromo")]
        )
    }

    /// The sections of a page followed to its end through `http`, and the chunks it took.
    static func sectionIDs(_ http: HTTPTestClient, _ pageID: String, headers: [(String, String)] = []) async throws
        -> (ids: [JSONValue], chunks: Int)
    {
        var response = try await http.get("/v1/pages/\(pageID)", headers: headers)
        var ids: [JSONValue] = []
        var chunks = 0
        while true {
            #expect(response.status == 200)
            let envelope = try json(response)
            chunks += 1
            ids += (envelope["page"]?["sections"] ?? envelope["sections"])?.arrayValue ?? []
            let pagination = envelope["page"]?["pagination"] ?? envelope["pagination"]
            guard pagination?["hasMore"]?.boolValue == true, let postback = pagination?["postback"]?.stringValue
            else { break }
            let encoded = postback.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? postback
            response = try await http.get("/v1/pages/\(pageID)/next?postback=\(encoded)", headers: headers)
            #expect(chunks < 100, "the cursor chain ends")
            if chunks >= 100 { break }
        }
        return (ids, chunks)
    }

    @Test func upstreamPagesAreFollowedToTheEndAndALocalFileWins() async throws {
        let local = try Self.localPages()
        try await Self.withUpstream { upstream in
            try await Self.withProxy(to: upstream.baseURL, pages: local) { proxy in
                let http = HTTPTestClient(port: proxy.port)
                let direct = try await Self.sectionIDs(HTTPTestClient(port: upstream.port), "feed")
                let proxied = try await Self.sectionIDs(http, "feed")
                #expect(
                    direct.ids.count == 48 && direct.chunks > 1,
                    "\(direct.ids.count) sections in \(direct.chunks) chunks")
                #expect(proxied.ids == direct.ids, "the upstream's cursors, opaque, followed to the end")
                let feed = try await http.get("/v1/pages/feed")
                #expect(feed.header("X-Flow-Source") == "upstream")
                #expect(feed.header("X-Flow-Contract") == "ok")
                #expect(feed.header("Cache-Control") == "no-cache", "the device's cache revalidates through the mock")
                // The local file wins: the proxy's own home, with its own cursors.
                let home = try await http.get("/v1/pages/home")
                #expect(home.header("X-Flow-Source") == nil)
                #expect(try json(home)["page"]?["title"] == "local home")
                // An action the local folder does not declare is forwarded and answered by the upstream.
                let cartPage = try await http.get("/v1/pages/cart")
                #expect(cartPage.header("X-Flow-Source") == "upstream")
                let answer = try await http.post(
                    "/v1/actions/cart.remove.p-1042",
                    json: #"{"pageID": "cart", "widgetID": "remove.p-1042", "event": "tap"}"#)
                #expect(answer.status == 200)
                #expect(answer.header("X-Flow-Source") == "upstream")
                #expect(answer.header("X-Flow-Contract") == "ok")
                #expect(try json(answer)["kind"] == "actionResponse")
                // Upstream problems pass through as they are.
                let missing = try await http.get("/v1/pages/nowhere")
                #expect(missing.status == 404)
                #expect(try json(missing)["code"] == "page_not_found")
                #expect(missing.header("X-Flow-Contract") == "ok")
            }
        }
    }

    @Test func twoFlowBFFProxiesInARowAreNotALoop() async throws {
        let local = try Self.localPages()
        let empty = try temporaryPages([:])
        try await Self.withUpstream { upstream in
            try await Self.withProxy(to: upstream.baseURL, pages: empty) { second in
                try await Self.withProxy(to: second.baseURL, pages: local) { first in
                    let http = HTTPTestClient(port: first.port)
                    let feed = try await http.get("/v1/pages/feed")
                    #expect(feed.status == 200)
                    #expect(feed.header("X-Flow-Source") == "upstream")
                    let chained = try await Self.sectionIDs(http, "feed")
                    #expect(chained.ids.count == 48, "the upstream's cursors through both proxies")
                }
            }
        }
    }

    @Test func mockFeaturesApplyToForwardedRequests() async throws {
        let local = try Self.localPages()
        try await Self.withUpstream { upstream in
            try await Self.withProxy(to: upstream.baseURL, pages: local) { proxy in
                let http = HTTPTestClient(port: proxy.port)
                let fault = try await http.get("/v1/pages/feed", headers: [("X-Flow-Mock", "status=503")])
                #expect(fault.status == 503)
                #expect(try json(fault)["code"] == "simulated_fault")
                let slow = try await http.get("/v1/pages/feed", headers: [("X-Flow-Mock", "latency=30ms")])
                #expect(slow.status == 200)
                #expect(slow.header("X-Flow-Source") == "upstream")
                let journal = try json(try await http.get("/__admin/journal?path=/v1/pages/feed"))
                let entries = try #require(journal["entries"]?.arrayValue)
                #expect(entries.count == 2)
                #expect(entries.last?["upstream"] == .string(upstream.baseURL + "/v1/pages/feed"))
                #expect(entries.last?["contract"] == .array([]))
                #expect(entries.first?["upstream"] == nil, "the simulated 503 never reached the upstream")
                #expect(entries.last?["faults"] == ["latency=30ms"])
                // A cut answer is cut: the upstream's page, 100 bytes of it.
                let cut = await rawExchange(
                    port: proxy.port, closingGET("/v1/pages/feed", ["X-Flow-Mock: truncate=100B"]))
                let head = try #require(cut.text.range(of: "\r\n\r\n"))
                #expect(cut.text.utf8.distance(from: head.upperBound, to: cut.text.endIndex) == 100)
                #expect(cut.text.lowercased().contains("x-flow-source: upstream"))
                // Switched at runtime: the local home is served from the upstream, then from the file again.
                let admin = [("X-Flow-Admin", "1"), ("Content-Type", "application/json")]
                let switched = try await http.request(
                    "PUT", "/__admin/proxy/pages/home", headers: admin, body: Array(#"{"source": "upstream"}"#.utf8))
                #expect(switched.status == 200)
                #expect(try json(switched)["pages"]?["home"]?["source"] == "upstream")
                let upstreamHome = try await http.get("/v1/pages/home")
                #expect(upstreamHome.header("X-Flow-Source") == "upstream")
                #expect(try json(upstreamHome)["page"]?["title"] != "local home")
                // The page's actions follow it: their mutations must meet the document the app shows.
                let dismissed = try await http.post(
                    "/v1/actions/home.dismissPromo",
                    json: #"{"pageID": "home", "widgetID": "promo.dismiss", "event": "tap"}"#)
                #expect(dismissed.status == 200)
                #expect(dismissed.header("X-Flow-Source") == "upstream")
                let refused = try await http.request(
                    "PUT", "/__admin/proxy/pages/feed", headers: admin, body: Array(#"{"source": "local"}"#.utf8))
                #expect(refused.status == 400, "feed has no local file")
                _ = try await http.request("DELETE", "/__admin/proxy/pages/home", headers: admin, body: nil)
                #expect(try json(try await http.get("/v1/pages/home"))["page"]?["title"] == "local home")
                let local = try await http.post(
                    "/v1/actions/home.dismissPromo", json: #"{"pageID": "home", "widgetID": "remove", "event": "tap"}"#)
                #expect(local.status == 200)
                #expect(local.header("X-Flow-Source") == nil, "answered by the local file again")
            }
        }
    }

    /// An upstream that answers every request with `body` as it is (a flow-bff would renumber a duplicate id).
    struct FixedUpstream: HTTPResponder {
        let body: String
        func respond(to request: consuming HTTPRequest) throws -> HTTPReply {
            // The request id echoed, as the contract asks: the one violation is the duplicate id.
            .response(.json(Array(body.utf8), headers: ["X-Request-ID": request.headers["X-Request-ID"] ?? ""]))
        }
    }

    @Test func aContractViolationIsJournaledCountedAndNamedInAHeader() async throws {
        let duplicate =
            #"{"schemaVersion": 1, "kind": "page", "page": {"id": "broken", "title": "Broken", "sections": [{"id": "s0", "widgets": [{"id": "twice", "type": "text", "content": {"text": "a"}}, {"id": "twice", "type": "text", "content": {"text": "b"}}]}], "pagination": {"hasMore": false}}}"#
        let upstream = HTTPServer(
            configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), logger: HTTPNoopLogSink(),
            responder: FixedUpstream(body: duplicate))
        try upstream.start()
        let local = try Self.localPages()
        var failure: (any Error)?
        do { try await violations(upstream, duplicate, local) } catch { failure = error }
        upstream.shutdown()
        await upstream.stoppedAsync()
        if let failure { throw failure }
    }

    private func violations(_ upstream: HTTPServer, _ duplicate: String, _ local: String) async throws {
        try await Self.withProxy(to: "http://127.0.0.1:\(upstream.port)", pages: local) { proxy in
            let http = HTTPTestClient(port: proxy.port)
            let page = try await http.get("/v1/pages/broken")
            #expect(page.status == 200, "the app still gets what the upstream sent")
            #expect(page.body == Array(duplicate.utf8))
            let summary = try #require(page.header("X-Flow-Contract"))
            #expect(summary.hasPrefix("1 error"))
            #expect(summary.contains("duplicate_id /page/sections/0/widgets/1/id"))
            let journal = try json(try await http.get("/__admin/journal?path=/v1/pages/broken"))
            let finding = try #require(journal["entries"]?[0]?["contract"]?[0])
            #expect(finding["code"] == "duplicate_id")
            #expect(finding["path"] == "/page/sections/0/widgets/1/id")
            let metrics = String(decoding: try await http.get("/metrics").body, as: UTF8.self)
            #expect(
                metrics.contains(
                    #"flow_bff_proxy_contract_findings_total{route="proxy.page",code="duplicate_id",severity="error"} 1"#
                ))
            // An action answered with a page envelope is the wrong kind.
            let action = try await http.post(
                "/v1/actions/broken.tap", json: #"{"pageID": "broken", "widgetID": "twice", "event": "tap"}"#)
            #expect(action.header("X-Flow-Contract")?.contains("unexpected_kind /kind") == true)
        }
    }

    @Test func nothingButTheConfiguredUpstreamIsReached() async throws {
        let local = try Self.localPages()
        // A second server stands for "elsewhere": its journal shows whether anything reached it.
        try await withTestServer(configuration: mockConfiguration()) { elsewhere in
            try await Self.withUpstream { upstream in
                try await Self.withProxy(to: upstream.baseURL, pages: local) { proxy in
                    let absolute = await rawExchange(
                        port: proxy.port,
                        "GET http://127.0.0.1:\(elsewhere.port)/v1/pages/feed HTTP/1.1\r\nHost: 127.0.0.1:\(elsewhere.port)\r\nConnection: close\r\n\r\n"
                    )
                    #expect(absolute.text.hasPrefix("HTTP/1.1 400"))
                    #expect(absolute.text.contains("proxy_refused"))
                    // A Host naming another server changes nothing: the request goes to the upstream.
                    let hosted = await rawExchange(
                        port: proxy.port,
                        "GET /v1/pages/feed HTTP/1.1\r\nHost: 127.0.0.1:\(elsewhere.port)\r\nConnection: close\r\n\r\n")
                    #expect(hosted.text.hasPrefix("HTTP/1.1 200"))
                    #expect(hosted.text.lowercased().contains("x-flow-source: upstream"))
                    let http = HTTPTestClient(port: proxy.port)
                    // A request that comes back with this proxy's own Via token is a loop; another proxy's is not.
                    let token = try #require(try json(try await http.get("/__admin/proxy"))["via"]?.stringValue)
                    let looped = try await http.get("/v1/pages/feed", headers: [("Via", "1.0 corp, " + token)])
                    #expect(looped.status == 508)
                    #expect(try json(looped)["code"] == "proxy_loop")
                    #expect(try await http.get("/v1/pages/feed", headers: [("Via", "1.1 flow-bff-0")]).status == 200)
                    let count = try json(try await HTTPTestClient(port: elsewhere.port).get("/__admin/journal/count"))
                    #expect(count["count"] == 0, "nothing reached the other server")
                }
            }
        }
    }

    /// An upstream that keeps the header fields of each request it gets and answers a page with no sections; a
    /// path ending in `slow` is answered after 1.5 s (from a timer, no thread held), `unavailable` with a 503
    /// problem, `redirect` with a 302 to `/v1/pages/elsewhere` on this same server.
    final class EchoUpstream: HTTPResponder {
        let received = Mutex<[(target: String, fields: [(name: String, value: String)])]>([])

        func respond(to request: consuming HTTPRequest) throws -> HTTPReply {
            let target = request.target
            let requestID = request.headers["X-Request-ID"] ?? ""
            received.withLock { $0.append((target, request.headers.map { ($0.name, $0.value) })) }
            let page = Array(
                #"{"schemaVersion": 1, "kind": "page", "page": {"id": "echo", "title": "Echo", "sections": []}}"#.utf8)
            let echoed: HTTPFields = ["X-Request-ID": requestID]
            if target.hasSuffix("unavailable") {
                var problem = ProblemDetails(
                    status: 503, code: "maintenance", title: "Maintenance", detail: "down for maintenance"
                ).makeResponse()
                problem.headers.set("X-Request-ID", requestID)
                return .response(problem)
            }
            if target.hasSuffix("redirect") {
                return .response(
                    HTTPResponse(status: 302, headers: ["Location": "/v1/pages/elsewhere", "X-Request-ID": requestID]))
            }
            guard target.hasSuffix("slow") else { return .response(.json(page, headers: echoed)) }
            return .deferred { promise in
                DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) {
                    promise.succeed(.json(page, headers: echoed))
                }
            }
        }

        /// The value of `name` in the last request for `target`.
        func field(_ name: String, of target: String) -> String? {
            received.withLock { requests in
                requests.last { $0.target == target }?.fields.first { $0.name.lowercased() == name.lowercased() }?
                    .value
            }
        }

        /// How many requests for `target` arrived.
        func count(_ target: String) -> Int { received.withLock { $0.count { $0.target == target } } }
    }

    @Test func whatTheDeviceSentIsForwardedAndASlowUpstreamIsA504() async throws {
        let echo = EchoUpstream()
        let upstream = HTTPServer(
            configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), logger: HTTPNoopLogSink(),
            responder: echo)
        try upstream.start()
        let local = try Self.localPages()
        let shortTimeout: (inout BFFConfiguration) -> Void = { $0.proxy.timeoutSeconds = 0.5 }
        var failure: (any Error)?
        do {
            try await Self.withProxy(to: "http://127.0.0.1:\(upstream.port)", pages: local, edit: shortTimeout) {
                proxy in
                let http = HTTPTestClient(port: proxy.port)
                let sent: [(String, String)] = [
                    ("X-Flow-Client", "ios/3.2.0"), ("Accept-Language", "de-DE"), ("Authorization", "Bearer t0ken"),
                    ("X-Request-ID", "device-request-1"), ("X-Flow-Session", "s-1"), ("X-Flow-Mock", "latency=1ms"),
                    ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"), ("Via", "1.0 corp-proxy"),
                ]
                let answer = try await http.get("/v1/pages/echo?productID=p%2D1&b=2", headers: sent)
                #expect(answer.status == 200)
                #expect(answer.headers.values(for: "X-Request-ID") == ["device-request-1"], "named once")
                #expect(answer.header("X-Flow-Contract") == "ok")
                let token = try #require(try json(try await http.get("/__admin/proxy"))["via"]?.stringValue)
                let target = "/v1/pages/echo?productID=p%2D1&b=2"
                #expect(echo.field("X-Flow-Client", of: target) == "ios/3.2.0")
                #expect(echo.field("Accept-Language", of: target) == "de-DE")
                #expect(echo.field("Authorization", of: target) == "Bearer t0ken")
                #expect(echo.field("X-Request-ID", of: target) == "device-request-1")
                #expect(echo.field("X-Flow-Session", of: target) == "s-1")
                #expect(echo.field("Via", of: target) == "1.0 corp-proxy, " + token, "appended to the device's")
                #expect(echo.field("Host", of: target) == "127.0.0.1:\(upstream.port)", "the upstream's own Host")
                #expect(echo.field("X-Flow-Mock", of: target) == nil, "the mock's controls stay behind")
                #expect(echo.field("X-Hop", of: target) == nil, "a field Connection names is hop-by-hop")
                // proxy.timeoutSeconds bounds the whole call: no second attempt after a timeout.
                let slow = try await http.get("/v1/pages/slow")
                #expect(slow.status == 504)
                #expect(try json(slow)["code"] == "upstream_timeout")
                #expect(echo.count("/v1/pages/slow") == 1)
                // An answered 503 reaches the app as it came, once: the app's own retry is what is under test.
                let unavailable = try await http.get("/v1/pages/unavailable")
                #expect(unavailable.status == 503)
                #expect(try json(unavailable)["detail"] == "down for maintenance")
                #expect(echo.count("/v1/pages/unavailable") == 1)
                // A redirect is passed back, never followed: nothing asked for the page it names.
                let redirect = try await http.get("/v1/pages/redirect")
                #expect(redirect.status == 302)
                #expect(redirect.header("Location") == "/v1/pages/elsewhere")
                #expect(echo.count("/v1/pages/elsewhere") == 0)
                // A HEAD is checked like its GET and says how long the body is.
                let head = try await http.request("HEAD", "/v1/pages/echo")
                #expect(head.status == 200)
                #expect(head.header("X-Flow-Contract") == "ok")
                #expect(head.header("Content-Length") == String(answer.body.count))
            }
        } catch {
            failure = error
        }
        upstream.shutdown()
        await upstream.stoppedAsync()
        if let failure { throw failure }
    }

    @Test func anUnreachableUpstreamIsA502NamingIt() async throws {
        let local = try Self.localPages()
        // A port nothing listens on, held for the whole test.
        let refusing = try RefusingPort()
        let port = refusing.port
        let shortTimeout: (inout BFFConfiguration) -> Void = { $0.proxy.timeoutSeconds = 2 }
        try await Self.withProxy(to: "http://127.0.0.1:\(port)", pages: local, edit: shortTimeout) { proxy in
            let http = HTTPTestClient(port: proxy.port)
            let answer = try await http.get("/v1/pages/feed")
            #expect(answer.status == 502)
            let problem = try json(answer)
            #expect(problem["code"] == "upstream_unavailable")
            #expect(problem["detail"]?.stringValue?.contains("http://127.0.0.1:\(port)") == true)
            #expect(try json(try await http.get("/v1/pages/home"))["page"]?["title"] == "local home")
        }
        withExtendedLifetime(refusing) {}
    }
}
