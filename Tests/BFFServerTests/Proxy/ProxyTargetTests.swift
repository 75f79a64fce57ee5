import HTTPCore
import PageModel
import Testing

@testable import BFFServer

/// The proxy's pure rules: which paths are forwarded, which URLs may be the upstream, which header fields travel,
/// and what the contract check finds in an answer.
@Suite struct ProxyTargetTests {
    @Test(arguments: [
        ("/v1/pages/feed", ProxyTarget.page("feed")),
        ("/v1/pages/feed/next", .nextPage("feed")),
        ("/v1/actions/cart.remove.p-1042", .action("cart.remove.p-1042")),
    ])
    func contractRoutesAreNamed(path: String, target: ProxyTarget) {
        #expect(ProxyTarget(path: path) == target)
    }

    @Test(arguments: [
        "/", "/v1/pages", "/v1/pages/", "/v1/pages/a.b", "/v1/pages/feed/next/x", "/v1/pages/feed/other",
        "/v1/actions/", "/v2/pages/feed", "/__admin/status", "/healthz", "/v1/pages/%2e%2e", "//v1/pages/feed",
    ])
    func otherPathsAreNeverForwarded(path: String) {
        #expect(ProxyTarget(path: path) == nil)
    }

    @Test func methodsFollowTheContract() {
        #expect(ProxyTarget.page("a").allows(.get) && !ProxyTarget.page("a").allows(.post))
        #expect(ProxyTarget.nextPage("a").allows(.post) && ProxyTarget.nextPage("a").allows(.get))
        #expect(ProxyTarget.action("a").allows(.post) && !ProxyTarget.action("a").allows(.get))
    }

    @Test(arguments: [
        ("https://staging.example.com", nil as String?),
        ("http://127.0.0.1:9000/base", nil),
        ("ftp://example.com", "is not an http:// or https:// URL"),
        ("http://", "names no host"),
        ("http://user:secret@example.com", "user information"),
        ("http://example.com/?a=1", "no query or fragment"),
        ("http://example.com/a b", "visible ASCII"),
    ])
    func upstreamURLsAreChecked(url: String, problem: String?) {
        let found = ProxyTarget.problem(baseURL: url)
        if let problem {
            #expect(found?.contains(problem) == true, "\(found ?? "nil")")
        } else {
            #expect(found == nil)
        }
    }

    @Test func excludeWinsOverInclude() throws {
        let include = [try FaultRule(pattern: "/v1/*", spec: .none)]
        let exclude = [try FaultRule(pattern: "POST /v1/actions/checkout.*", spec: .none)]
        #expect(ProxyTarget.admits(method: "GET", path: "/v1/pages/feed", include: include, exclude: exclude))
        #expect(
            !ProxyTarget.admits(method: "POST", path: "/v1/actions/checkout.pay", include: include, exclude: exclude))
        #expect(ProxyTarget.admits(method: "POST", path: "/v1/actions/cart.add", include: include, exclude: exclude))
        #expect(!ProxyTarget.admits(method: "GET", path: "/healthz", include: include, exclude: exclude))
        #expect(ProxyTarget.isValidPattern("GET /v1/pages/*") && !ProxyTarget.isValidPattern("v1/pages"))
    }

    @Test func hopByHopAndMockFieldsStayBehind() {
        let headers: HTTPFields = [
            "Host": "device.local:8080", "Connection": "keep-alive, X-Secret-Hop", "X-Secret-Hop": "1",
            "Keep-Alive": "timeout=5", "Authorization": "Bearer abc", "X-Flow-Client": "ios/3.2.0",
            "Accept-Language": "de", "X-Flow-Mock": "latency=10ms", "X-Flow-Scenario": "empty",
            "X-Request-ID": "r-1", "Content-Length": "2", "TE": "trailers", "Cookie": "a=1",
            "Via": "1.1 corp-proxy",
        ]
        let names = ProxyTarget.forwardedFields(of: headers).map { $0.name }
        #expect(names == ["Authorization", "X-Flow-Client", "Accept-Language", "Cookie"])
        let returned = ProxyTarget.returnedFields(of: [
            ("Content-Type", "application/json"), ("Content-Length", "10"), ("Content-Encoding", "gzip"),
            ("Transfer-Encoding", "chunked"), ("Connection", "close, X-Hop"), ("X-Hop", "1"), ("ETag", "\"1\""),
            ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("Server", "upstream"), ("Date", "today"),
        ])
        #expect(returned.map(\.name) == ["Content-Type", "ETag", "Set-Cookie", "Set-Cookie"])
        #expect(ProxyTarget.returnedFields(of: [("X-Request-ID", "upstream's")]).isEmpty, "the proxy names the request")
    }

    @Test func aLoopIsFoundInVia() {
        #expect(ProxyTarget.hasLooped(["Via": "1.0 corp, 1.1 flow-bff-1a2b"], token: "1.1 flow-bff-1a2b"))
        #expect(!ProxyTarget.hasLooped(["Via": "1.1 flow-bff-9999"], token: "1.1 flow-bff-1a2b"), "another proxy")
        #expect(!ProxyTarget.hasLooped([:], token: "1.1 flow-bff-1a2b"))
    }

    // MARK: The contract check

    let check = ProxiedAnswerCheck(pages: BFFConfiguration.Pages())

    func findings(_ target: ProxyTarget, _ body: String, status: Int = 200, type: String = "application/json")
        -> [String]
    {
        check.check(target, status: status, contentType: type, body: Array(body.utf8)).map { "\($0.code) \($0.path)" }
    }

    @Test func aConformingAnswerHasNoFindings() {
        #expect(
            findings(
                .page("a"),
                #"{"schemaVersion": 1, "kind": "page", "page": {"id": "a", "title": "A", "sections": [{"id": "s", "widgets": [{"id": "t", "type": "text", "content": {"text": "x"}}]}], "pagination": {"hasMore": false}}}"#
            ) == [])
        #expect(
            findings(.action("x"), #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [], "effects": []}"#)
                == [])
        #expect(
            findings(
                .page("a"),
                #"{"type": "about:blank", "title": "Gone", "status": 404, "detail": "No a.", "code": "page_not_found"}"#,
                status: 404, type: "application/problem+json") == [])
        #expect(findings(.page("a"), "", status: 304, type: "") == [])
    }

    @Test func violationsAreNamedWithTheirPointers() {
        #expect(
            Set(
                findings(
                    .nextPage("a"),
                    #"{"schemaVersion": 1, "kind": "nextPage", "sections": [{"id": "s", "widgets": [{"id": "t", "type": "text", "content": {"text": "x"}}, {"id": "t", "type": "text", "content": {"text": "y"}}]}], "pagination": {"hasMore": true}}"#
                )) == ["duplicate_id /sections/0/widgets/1/id", "missing_postback /pagination/postback"])
        #expect(findings(.page("a"), "{") == ["invalid_json "])
        #expect(
            findings(.page("a"), #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [], "effects": []}"#)
                == ["unexpected_kind /kind"])
        #expect(findings(.page("a"), "<html>", type: "text/html") == ["wrong_content_type "])
        #expect(
            findings(.page("a"), #"{"error": "boom"}"#, status: 500, type: "application/json") == [
                "wrong_content_type "
            ])
        #expect(
            findings(.page("a"), #"{"status": 502, "title": "x"}"#, status: 500, type: "application/problem+json")
                == [
                    "invalid_problem_response /type", "invalid_problem_response /detail",
                    "invalid_problem_response /code",
                    "invalid_problem_response /status",
                ])
        #expect(
            findings(
                .page("a"),
                #"{"schemaVersion": 1, "kind": "page", "page": {"id": "b", "title": "B", "sections": []}}"#)
                == ["page_id_mismatch /page/id"])
        let localized = Array(
            #"{"schemaVersion": 1, "kind": "page", "locale": "de", "page": {"id": "a", "title": "A", "sections": []}}"#
                .utf8)
        #expect(
            check.check(.page("a"), status: 200, contentType: "application/json", body: localized).map(\.code)
                == ["locale_mismatch"])
        #expect(
            check.check(
                .page("a"), status: 200, contentType: "application/json", body: localized, contentLanguage: "DE") == [])
        let echoed = check.check(
            .page("a"), status: 304, contentType: nil, body: [], requestID: "r-1", echoed: "r-2")
        #expect(echoed.map(\.code) == ["request_id_not_echoed"])
        #expect(check.check(.page("a"), status: 304, contentType: nil, body: [], requestID: "r-1", echoed: "r-1") == [])
    }

    @Test func theSummaryFitsOneHeaderLine() {
        #expect(ProxiedAnswerCheck.summary([]) == "ok")
        let many = (0..<5).map { Diagnostic.error("duplicate_id", JSONPointer("/page/sections") / $0, "twice\n") }
        let summary = ProxiedAnswerCheck.summary(many + [.warning("missing_id", "/page/header/0", "no id")])
        #expect(
            summary
                == "5 errors, 1 warning; duplicate_id /page/sections/0; duplicate_id /page/sections/1; duplicate_id /page/sections/2"
        )
    }
}
