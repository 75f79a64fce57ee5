import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// One session rule for every reader (docs/mock.md "Sessions"): `X-Flow-Session`, else the `flow_session` cookie.
/// A browser that only sends the cookie is the same session to `when` conditions, templates, the idempotency
/// scope, the journal and the session's document copies as an app that sends the header.
@Suite struct SessionRuleTests {
    static let answers = #"""
        {"responses": [
          {"when": {"session.id": {"glob": "vip-*"}}, "response": {"schemaVersion": 1, "kind": "actionResponse",
            "effects": [{"type": "toast", "message": "hello {{session.id}}"}]}},
          {"response": {"schemaVersion": 1, "kind": "actionResponse", "effects": [{"type": "toast", "message": "plain"}]}}
        ]}
        """#

    @Test func aCookieSessionIsTheHeaderSessionForConditionsIdempotencyAndTheJournal() async throws {
        let pages = try temporaryPages(["shop.json": RequestMatchingTests.cartFile(Self.answers)])
        try await withTestApplication(pages: pages, configuration: mockConfiguration()) { http in
            let body = #"{"pageID": "shop", "widgetID": "qty", "event": "change", "value": 2}"#
            func send(_ headers: [(String, String)]) async throws -> (message: String?, replayed: Bool) {
                let answer = try await http.post("/v1/actions/shop.set", json: body, headers: headers)
                #expect(answer.status == 200, "\(answer.text)")
                let effect = try PageDecoder().decodeActionResponse(answer.body).value.effects.first
                guard case .toast(let text)? = effect else { return (nil, false) }
                return (text, answer.header("Idempotent-Replayed") == "true")
            }
            let cookie = [("Cookie", "theme=dark; flow_session=vip-7")]
            let header = [("X-Flow-Session", "vip-7")]
            // `when` and templates.
            #expect(try await send(cookie).message == "hello vip-7")
            #expect(try await send([("Cookie", "flow_session=vip-7"), ("X-Flow-Session", "guest")]).message == "plain")
            // The idempotency scope: the cookie's key is the header's key, and no other session's.
            let key = [("Idempotency-Key", "k-1")]
            let first = try await send(cookie + key)
            #expect(first.message == "hello vip-7" && !first.replayed)
            let retryByHeader = try await send(header + key)
            #expect(retryByHeader.message == "hello vip-7" && retryByHeader.replayed)
            let otherSession = try await send([("Cookie", "flow_session=vip-8")] + key)
            #expect(otherSession.message == "hello vip-8" && !otherSession.replayed)
            // The journal.
            let count = try await http.get("/__admin/journal/count?session=vip-7&path=/v1/actions/shop.set")
            #expect(try json(count)["count"] == 3, "\(count.text)")
        }
    }

    @Test func aCookieSessionOwnsTheSameDocumentCopyAsTheHeader() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let before = try await http.get("/v1/pages/cart")
            let removed = try await http.post(
                "/v1/actions/cart.remove.p-1042",
                json: #"{"pageID": "cart", "widgetID": "remove.p-1042", "event": "tap"}"#,
                headers: [("Cookie", "flow_session=web-1")])
            #expect(removed.status == 200, "\(removed.text)")
            let byHeader = try await http.get("/v1/pages/cart", headers: [("X-Flow-Session", "web-1")])
            #expect(byHeader.body != before.body)
            #expect(!byHeader.text.contains("line.p-1042"))
            #expect(try await http.get("/v1/pages/cart").body == before.body, "other clients keep the page file")
            let status = try await json(try http.get("/__admin/sessions/web-1"))
            #expect(status["changedPages"] == ["cart"])
        }
    }

    @Test func aMalformedCookieSessionIsRefusedLikeAMalformedHeader() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            for headers in [[("Cookie", "flow_session=a b")], [("X-Flow-Session", "a b")]] {
                let refused = try await http.get("/v1/pages/cart", headers: headers)
                #expect(refused.status == 400, "\(headers)")
                #expect(try json(refused)["code"] == "invalid_session", "\(headers)")
            }
        }
    }
}
