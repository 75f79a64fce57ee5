import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// Runtime stubs as a UI test uses them: a page and an action answer put for one session through the admin API,
/// served to that session only, refused with findings when invalid, forgotten by a reset.
@Suite struct RuntimeStubTests {
    static let admin = [("X-Flow-Admin", "1"), ("Content-Type", "application/json")]

    static func put(_ http: HTTPTestClient, _ target: String, _ body: String) async throws -> HTTPTestClient.Response {
        try await http.request("PUT", target, headers: admin, body: Array(body.utf8))
    }

    @Test func aStubIsServedToItsSessionOnlyUntilReset() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let http = HTTPTestClient(port: server.port)
            let test = [("X-Flow-Session", "ui-7")]
            // Five returns, two per chunk: a page the files do not have, with a button whose action is stubbed too.
            let put = try await Self.put(
                http, "/__admin/stubs/pages/returns?session=ui-7",
                listPage("returns", sections: 5, pageSize: 2, text: "order", action: nil).replacingOccurrences(
                    of: #"{"id": "w0", "type": "text", "content": {"text": "order 0"}}"#,
                    with:
                        #"{"id": "w0", "type": "button", "content": {"title": "Cancel"}, "actions": {"tap": {"type": "api", "name": "returns.start"}}}"#
                ))
            #expect(put.status == 400, "returns.start is neither declared nor stubbed yet")
            #expect(try json(put)["code"] == "invalid_stub")
            #expect(try json(put)["diagnostics"]?[0]?["code"] == "unknown_action_reference")
            #expect(try json(put)["diagnostics"]?[0]?["path"] == "/page/sections/0/widgets/0/actions/tap/name")
            let answer = try await Self.put(
                http, "/__admin/stubs/actions/returns.start?session=ui-7",
                #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "removeWidget", "id": "w0"}], "effects": [{"type": "toast", "message": "Cancelled"}]}"#
            )
            #expect(answer.status == 200)
            let page = try await Self.put(
                http, "/__admin/stubs/pages/returns?session=ui-7",
                listPage("returns", sections: 5, pageSize: 2, text: "order").replacingOccurrences(
                    of: #"{"id": "w0", "type": "text", "content": {"text": "order 0"}}"#,
                    with:
                        #"{"id": "w0", "type": "button", "content": {"title": "Cancel"}, "actions": {"tap": {"type": "api", "name": "returns.start"}}}"#
                ))
            #expect(page.status == 200, "\(page.text)")
            #expect(try json(page)["pages"] == [["id": "returns", "session": "ui-7"]])

            // The session gets the stub, chunk by chunk; anyone else the files (no returns page).
            let first = try await http.get("/v1/pages/returns", headers: test)
            #expect(first.status == 200)
            #expect(try json(first)["page"]?["sections"]?.arrayValue?.count == 2)
            let postback = try #require(try json(first)["page"]?["pagination"]?["postback"]?.stringValue)
            let next = try await http.get(
                "/v1/pages/returns/next?postback="
                    + (postback.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                headers: test)
            #expect(try json(next)["sections"]?[0]?["id"] == "s2")
            #expect(try await http.get("/v1/pages/returns").status == 404)
            let cancelled = try await http.post(
                "/v1/actions/returns.start", json: #"{"pageID": "returns", "widgetID": "w0", "event": "tap"}"#,
                headers: test)
            #expect(try json(cancelled)["effects"]?[0]?["message"] == "Cancelled")
            #expect(
                try await http.post(
                    "/v1/actions/returns.start", json: #"{"pageID": "returns", "widgetID": "w0", "event": "tap"}"#
                ).status == 404, "not stubbed for other sessions")

            // An invalid answer is refused with its findings; the session's reset forgets its stubs.
            let invalid = try await Self.put(
                http, "/__admin/stubs/actions/returns.start",
                #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [], "effects": [{"type": "deeplink", "url": "javascript:alert(1)"}]}"#
            )
            #expect(invalid.status == 400)
            #expect(try json(invalid)["diagnostics"]?[0]?["path"]?.stringValue?.hasPrefix("/effects/0") == true)
            let null = try await Self.put(
                http, "/__admin/stubs/actions/returns.start",
                #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [], "effects": null}"#)
            #expect(null.status == 400, "a stub answer is sent as it is: its shape is the document's")
            #expect(try json(null)["diagnostics"]?[0]?["path"] == "/effects")
            _ = try await http.request("DELETE", "/__admin/sessions/ui-7", headers: Self.admin, body: nil)
            #expect(try await http.get("/v1/pages/returns", headers: test).status == 404)
            #expect(try json(try await http.get("/__admin/stubs")) == ["pages": [], "actions": [], "data": []])
        }
    }
}
