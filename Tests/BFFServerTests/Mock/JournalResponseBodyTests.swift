import BFFServer
import BFFTesting
import HTTPTesting
import PageModel
import Testing

/// The journal keeps what the app was answered, not only what it sent: a UI test asserts on the answer's body.
@Suite struct JournalResponseBodyTests {
    @Test func anAnswerIsJournaledAsTheServerMadeIt() async throws {
        try await withTestServer(configuration: mockConfiguration { $0.journalBodyBytes = 600 }) { server in
            let http = HTTPTestClient(port: server.port)
            _ = try await http.get("/v1/pages/cart", headers: [("X-Flow-Session", "ui-1")])
            let answered = try await http.post(
                "/v1/actions/cart.setQuantity",
                json:
                    #"{"pageID": "cart", "widgetID": "qty.p-3307", "event": "change", "value": 7, "payload": {"productID": "p-3307"}}"#,
                headers: [("X-Flow-Session", "ui-1"), ("Accept-Encoding", "gzip")])
            #expect(answered.status == 200)
            let journal = try json(try await http.get("/__admin/journal?session=ui-1"))
            let entries = try #require(journal["entries"]?.arrayValue)
            #expect(entries.count == 2)
            // The action's answer, small enough to be kept whole: as JSON, what the app got.
            let action = try #require(entries.last)
            #expect(action["responseBody"]?["kind"] == "actionResponse")
            #expect(action["responseBody"] == (try json(answered)))
            #expect(action["responseBodyTruncated"] == false)
            // The cart page is longer than 600 bytes: its start, as text, flagged.
            let page = try #require(entries.first)
            #expect(page["responseBodyTruncated"] == true)
            let start = try #require(page["responseBody"]?.stringValue)
            #expect(start.utf8.count == 600 && start.hasPrefix(#"{"schemaVersion":1,"kind":"page""#))
            // A simulated fault that sent nothing has no body.
            _ = await rawExchange(
                port: server.port, closingGET("/v1/pages/cart", ["X-Flow-Mock: reset", "X-Flow-Session: ui-1"]))
            let faulted = try #require(try json(try await http.get("/__admin/journal?session=ui-1"))["entries"]?[2])
            #expect(faulted["status"] == 0)
            #expect(faulted["responseBody"] == nil)
        }
    }
}
