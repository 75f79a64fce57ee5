import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Testing

@testable import BFFServer

/// The DNS-rebinding and cross-site defences of the admin API, the preview and the index, the journal's redaction
/// and the HTML answers' security fields (docs/mock.md § Who can reach the mock).
@Suite struct HostPolicyTests {
    @Test(arguments: [
        "127.0.0.1:8080", "127.9.9.9", "[::1]:8080", "[::ffff:127.0.0.1]:1", "10.0.2.2:8080", "192.168.1.20:8080",
        "localhost:8080", "LOCALHOST", "localhost.", "phone.localhost:1",
    ])
    func loopbackNamesAndIPLiteralsAreAllowed(_ authority: String) {
        #expect(HostPolicy(allowedHosts: []).allows(authority: authority))
    }

    @Test(arguments: [
        "evil.example:18500", "evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "", ":8080",
        "evil.example.", "a:b", "[::1", "[evil]:80", "2130706433", "0x7f.1", "localhost:80x",
    ])
    func otherNamesAreRefused(_ authority: String) {
        #expect(!HostPolicy(allowedHosts: []).allows(authority: authority))
    }

    @Test func configuredNamesAndWildcards() {
        let policy = HostPolicy(allowedHosts: ["Mock.Example.com", "*.dev.example"])
        #expect(policy.allows(authority: "mock.example.com:443"))
        #expect(policy.allows(authority: "MOCK.EXAMPLE.COM."))
        #expect(policy.allows(authority: "a.b.dev.example:8080"))
        #expect(!policy.allows(authority: "dev.example"))
        #expect(!policy.allows(authority: "x.mock.example.com"))
        #expect(HostPolicy(allowedHosts: ["*"]).allows(authority: "anything.example"))
        #expect(HostPolicy(allowedHosts: []).allows(authority: nil), "no Host: not a browser")
    }

    @Test func anAbsoluteFormTargetNamesTheHost() {
        #expect(
            HostPolicy.authority(target: "http://evil.example:1/__admin/status", host: "127.0.0.1") == "evil.example:1")
        #expect(HostPolicy.authority(target: "HTTPS://evil.example?x", host: "127.0.0.1") == "evil.example")
        #expect(HostPolicy.authority(target: "/__admin/status", host: "127.0.0.1:9") == "127.0.0.1:9")
    }

    @Test func configurationEntriesAreChecked() throws {
        let configuration = try ConfigurationLoader().load(
            files: [], environment: ["FLOW_BFF_MOCK_ALLOWED_HOSTS": "mock.example.com, *.dev.example"])
        #expect(configuration.mock.allowedHosts == ["mock.example.com", "*.dev.example"])
        for value in ["a b", "*.", "a..b", "exa*mple.com", "mock.example.com:8080", "http://x"] {
            #expect(throws: ConfigurationError.self, "\(value)") {
                try ConfigurationLoader().load(files: [], environment: ["FLOW_BFF_MOCK_ALLOWED_HOSTS": value])
            }
        }
        let redact = try ConfigurationLoader().load(
            files: [], environment: ["FLOW_BFF_MOCK_JOURNAL_REDACT_HEADERS": "X-Secret"])
        #expect(redact.mock.journalRedactHeaders == ["X-Secret"])
        #expect(BFFConfiguration().mock.journalRedactHeaders.contains("Proxy-Authorization"))
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(files: [], environment: ["FLOW_BFF_MOCK_JOURNAL_REDACT_HEADERS": "a:b"])
        }
    }
}

@Suite struct AdminRequestRuleTests {
    let token = "0123456789abcdef-secret"

    @Test func theBearerSchemeIsCaseInsensitive() {
        for authorization in ["Bearer \(token)", "bearer \(token)", "BEARER \(token)", "bEaReR   \(token)"] {
            #expect(AdminAccess.carriesToken(authorization, token: token), "\(authorization)")
        }
        for authorization in ["Bearer\(token)", "Basic \(token)", "Bearer \(token)x", "Bearer ", "Bearer", token] {
            #expect(!AdminAccess.carriesToken(authorization, token: token), "\(authorization)")
        }
        #expect(!AdminAccess.carriesToken("Bearer \(token)", token: nil))
    }

    @Test func crossSiteRequestsAreRecognised() {
        let cors = CORSPolicy(origins: CORSPolicy.loopback)
        let none = CORSPolicy(origins: [])
        func crossSite(_ origin: String?, _ site: String?, _ host: String?, _ policy: CORSPolicy) -> Bool {
            AdminAccess.isCrossSite(origin: origin, fetchSite: site, host: host, cors: policy)
        }
        #expect(!crossSite("http://127.0.0.1:8080", "same-origin", "127.0.0.1:8080", none))
        #expect(!crossSite("http://localhost", nil, "localhost:80", none), "default port")
        #expect(!crossSite("https://mock.example.com", nil, "mock.example.com", none), "default port")
        #expect(!crossSite(nil, nil, "127.0.0.1:8080", none), "curl, tests, devices")
        #expect(!crossSite(nil, "same-site", "127.0.0.1:8080", none))
        #expect(!crossSite("http://localhost:5173", "same-site", "127.0.0.1:8080", cors), "an allowed origin")
        #expect(crossSite("https://evil.example", "cross-site", "127.0.0.1:8080", cors))
        #expect(crossSite("http://localhost:5173", nil, "127.0.0.1:8080", none))
        #expect(crossSite("http://127.0.0.1:8081", nil, "127.0.0.1:8080", none), "another port")
        #expect(crossSite("null", nil, "127.0.0.1:8080", CORSPolicy(origins: ["*"])))
        #expect(crossSite(nil, "cross-site", "127.0.0.1:8080", cors))
    }

    @Test func stateChangingCallsAndNonSimpleFields() {
        #expect(!AdminAccess.changesState(.get, path: "/__admin/journal"))
        #expect(!AdminAccess.changesState(.head, path: "/__admin/journal"))
        #expect(!AdminAccess.changesState(.post, path: "/__admin/echo"))
        #expect(AdminAccess.changesState(.post, path: "/__admin/reset"))
        #expect(AdminAccess.changesState(.delete, path: "/__admin/journal"))
        #expect(MediaType.isJSON("application/json"))
        #expect(MediaType.isJSON("Application/JSON ; charset=utf-8"))
        #expect(!MediaType.isJSON("text/plain; x=application/json"))
        #expect(!MediaType.isJSON("application/x-www-form-urlencoded"))
        #expect(!MediaType.isJSON(nil))
    }

    @Test func theJournalRedactsCredentialsAndCookieValues() {
        #expect(
            JournalDraft.redactedCookies("flow_session=ui-9; theme=dark") == "flow_session=[redacted]; theme=[redacted]"
        )
        #expect(JournalDraft.redactedCookies("lonely") == "[redacted]")
    }
}

/// Raw requests as a DNS-rebinding page or a cross-site form would send them (the issue's reproductions).
@Suite struct AdminHardeningLiveTests {
    struct Answer {
        var status: Int
        var head: String
        var body: String
        var problem: JSONValue? { try? JSONParser().parse(Array(body.utf8)) }
    }

    static func send(
        _ port: Int, _ method: String, _ target: String, host: String? = nil, _ headers: [String] = [],
        body: String = ""
    ) async -> Answer {
        var request = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        for header in headers { request += header + "\r\n" }
        request += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        let text = await rawExchange(port: port, request).text
        let parts = text.components(separatedBy: "\r\n\r\n")
        let status = parts[0].split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return Answer(status: status, head: parts[0], body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test func aRebindingPageCannotReadTheJournalNorResetTheMock() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let port = server.port
            let evil = "evil.example:\(port)"
            let http = HTTPTestClient(port: port)
            let created = try await http.request(
                "PUT", "/__admin/sessions/ui-1",
                headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(created.status == 200)
            let journal = await Self.send(port, "GET", "/__admin/journal", host: evil, ["Accept: */*"])
            #expect(journal.status == 403)
            #expect(journal.head.lowercased().contains("content-type: application/problem+json"))
            #expect(journal.problem?["code"] == "host_not_allowed")
            #expect(!journal.body.contains("ui-1"))
            let reset = await Self.send(
                port, "POST", "/__admin/reset", host: evil,
                ["Origin: http://\(evil)", "Content-Type: text/plain", "Sec-Fetch-Site: same-origin"], body: "x")
            #expect(reset.status == 403)
            #expect(reset.problem?["code"] == "host_not_allowed")
            for target in ["/", "/__preview", "/__preview/preview.js", "/__preview/catalog.json"] {
                let answer = await Self.send(port, "GET", target, host: evil, ["Accept: text/html"])
                #expect(answer.status == 403, "\(target)")
                #expect(answer.problem?["code"] == "host_not_allowed", "\(target)")
            }
            let absolute = await Self.send(port, "GET", "http://\(evil)/__admin/status")
            #expect(absolute.problem?["code"] == "host_not_allowed", "the target's authority overrides Host")
            let page = await Self.send(port, "GET", "/v1/pages/home", host: evil)
            #expect(page.status == 200, "public routes answer any host")
            let android = await Self.send(port, "GET", "/__admin/status", host: "10.0.2.2:\(port)")
            #expect(android.status == 200, "the Android emulator's address")
            let session = try await http.get("/__admin/sessions/ui-1")
            #expect(session.status == 200, "not reset")
        }
    }

    @Test func aCrossSiteSimplePostIsRefused() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let port = server.port
            let http = HTTPTestClient(port: port)
            let created = try await http.request(
                "PUT", "/__admin/sessions/ui-1",
                headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(created.status == 200)
            let form = await Self.send(
                port, "POST", "/__admin/reset",
                ["Origin: https://evil.example", "Content-Type: text/plain", "Sec-Fetch-Site: cross-site"], body: "x")
            #expect(form.status == 403)
            #expect(form.problem?["code"] == "cross_site_refused")
            let noOrigin = await Self.send(port, "GET", "/__admin/journal", ["Sec-Fetch-Site: cross-site"])
            #expect(noOrigin.problem?["code"] == "cross_site_refused")
            let sandboxed = await Self.send(port, "POST", "/__admin/reload", ["Origin: null", "X-Flow-Admin: 1"])
            #expect(sandboxed.problem?["code"] == "cross_site_refused")
            let plain = await Self.send(port, "POST", "/__admin/reset", ["Content-Type: text/plain"], body: "x")
            #expect(plain.status == 403, "no Origin, but nothing a browser could not send cross-site without one")
            #expect(plain.problem?["code"] == "admin_header_required")
            let session = try await http.get("/__admin/sessions/ui-1")
            #expect(session.status == 200, "nothing was reset")

            let devServer = await Self.send(
                port, "POST", "/__admin/reset?session=ui-1", ["Origin: http://localhost:5173", "X-Flow-Admin: 1"])
            #expect(devServer.status == 200, "a loopback origin http.corsOrigins allows")
            let json = await Self.send(port, "DELETE", "/__admin/journal", ["Content-Type: application/json"])
            #expect(json.status == 200, "a JSON content type needs a preflight too")
            let sameOrigin = await Self.send(
                port, "POST", "/__admin/reset", ["Origin: http://127.0.0.1:\(port)", "X-Flow-Admin: 1"])
            #expect(sameOrigin.status == 200)
            let sessions = try await http.get("/__admin/sessions")
            #expect(try JSONParser().parse(sessions.body)["count"] == 0)
        }
    }

    @Test func theTokenIsAcceptedWithABearerSchemeInAnyCaseAndStandsForTheHeader() async throws {
        let token = "a-long-admin-token-for-tests"
        try await withTestServer(configuration: mockConfiguration { $0.adminToken = token }) { server in
            let answer = await Self.send(server.port, "POST", "/__admin/reload", ["Authorization: bearer \(token)"])
            #expect(answer.status == 200, "\(answer.body)")
            let wrong = await Self.send(server.port, "POST", "/__admin/reload", ["Authorization: bearer nope"])
            #expect(wrong.problem?["code"] == "admin_header_required", "loopback, but neither header nor token")
        }
    }

    @Test func configuredPublicNamesAreAnswered() async throws {
        try await withTestServer(configuration: mockConfiguration { $0.allowedHosts = ["mock.example.test"] }) {
            server in
            let named = await Self.send(server.port, "GET", "/__admin/status", host: "mock.example.test:\(server.port)")
            #expect(named.status == 200)
            let other = await Self.send(server.port, "GET", "/__admin/status", host: "other.example.test")
            #expect(other.problem?["code"] == "host_not_allowed")
        }
    }

    @Test func theJournalRedactsSensitiveHeadersByDefault() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let secrets = [
                ("Authorization", "Bearer s3cret-1"), ("Proxy-Authorization", "Basic s3cret-2"),
                ("X-Api-Key", "s3cret-3"), ("Cookie", "flow_session=ui-9; theme=s3cret-4"), ("X-Other", "visible"),
            ]
            #expect(try await http.get("/v1/pages/home", headers: secrets).status == 200)
            let journal = try await http.get("/__admin/journal?session=ui-9")
            #expect(!journal.text.contains("s3cret"), "\(journal.text)")
            let entries = try #require(try JSONParser().parse(journal.body)["entries"]?.arrayValue)
            #expect(entries.count == 1, "the cookie still names the session")
            let headers = entries.first?["headers"]?.arrayValue ?? []
            func value(_ name: String) -> JSONValue? { headers.first { $0[0] == .string(name) }?[1] }
            #expect(value("Authorization") == "[redacted]")
            #expect(value("Proxy-Authorization") == "[redacted]")
            #expect(value("X-Api-Key") == "[redacted]")
            #expect(value("Cookie") == "flow_session=[redacted]; theme=[redacted]")
            #expect(value("X-Other") == "visible")
        }
        try await withTestServer(configuration: mockConfiguration { $0.journalRedactHeaders = ["x-other"] }) {
            server in
            let http = HTTPTestClient(port: server.port)
            _ = try await http.get("/v1/pages/home", headers: [("Cookie", "theme=dark"), ("X-Other", "hidden")])
            let journal = try await http.get("/__admin/journal")
            #expect(journal.text.contains("theme=dark"), "the configured list replaces the default")
            #expect(!journal.text.contains("hidden"))
        }
    }

    @Test func htmlAnswersCarryAPolicyWithoutUnsafeInline() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let index = try await http.get("/", headers: [("Accept", "text/html")])
            #expect(index.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(index.header("X-Content-Type-Options") == "nosniff")
            let policy = try #require(index.header("Content-Security-Policy"))
            let style = try #require(
                index.text.components(separatedBy: "<style>").dropFirst().first?
                    .components(separatedBy: "</style>").first)
            #expect(policy.contains("style-src '\(BrowserHardening.hashSource(style))'"), "the hash is the style's")
            #expect(policy.contains("default-src 'none'"))
            let preview = try await http.get("/__preview")
            #expect(preview.header("Content-Security-Policy") == BrowserHardening.previewPolicy)
            #expect(preview.header("X-Content-Type-Options") == "nosniff")
            for policy in [policy, BrowserHardening.previewPolicy] {
                #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
                #expect(policy.contains("frame-ancestors 'none'"))
            }
            for asset in ["preview.js", "widgets.js", "preview.css"] {
                let response = try await http.get("/__preview/" + asset)
                #expect(response.header("X-Content-Type-Options") == "nosniff", "\(asset)")
            }
            #expect(!EmbeddedFiles.previewIndexHTML.contains("<script>"), "no inline script")
            #expect(!EmbeddedFiles.previewIndexHTML.contains(" style="), "no inline style attribute")
            #expect(!EmbeddedFiles.previewIndexHTML.contains("<style"), "no inline style element")
        }
    }
}
