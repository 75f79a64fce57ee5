import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// Answers that depend on the request, with only page files (the bundled ones): matched and templated action
/// answers, page variants by query parameter, a journal a UI test can assert on, per-session fault rules.
@Suite struct MockAnswerTests {
    static let setQuantity = "/v1/actions/cart.setQuantity"

    static func setQuantity(_ productID: String, _ value: Int) -> String {
        #"{"pageID": "cart", "widgetID": "qty.\#(productID)", "event": "change", "value": \#(value), "payload": {"productID": "\#(productID)"}}"#
    }

    func actionResponse(_ response: HTTPTestClient.Response) throws -> ActionResponse {
        try PageDecoder().decodeActionResponse(response.body).value
    }

    func stepper(_ page: PageModel, _ id: String) -> Widget? {
        page.sections.flatMap(\.widgets).first { $0.id == id }
    }

    @Test(arguments: [false, true])
    func cartSetQuantityAnswersTheSentStepperAtTheSentValue(mock: Bool) async throws {
        var configuration = mock ? mockConfiguration() : BFFConfiguration()
        configuration.logging.accessLog = false
        try await withTestApplication(configuration: configuration) { http in
            for (productID, value) in [("p-3307", 7), ("p-4415", 2), ("p-1042", 5)] {
                let answer = try await http.post(Self.setQuantity, json: Self.setQuantity(productID, value))
                #expect(answer.status == 200, "\(answer.text)")
                let response = try actionResponse(answer)
                #expect(response.mutations.count == 1)
                guard case .replaceWidget(let id, let widget) = try #require(response.mutations.first) else {
                    Issue.record("expected a replaceWidget, got \(response.mutations)")
                    continue
                }
                #expect(id == "qty.\(productID)")
                #expect(widget.id == "qty.\(productID)")
                #expect(widget.type == "stepper")
                #expect(widget.content["value"] == .number(Double(value)), "a number where the placeholder is whole")
                #expect(
                    widget.actions["change"]
                        == .api(name: "cart.setQuantity", payload: ["productID": .string(productID)]))
                #expect(response.effects == [.toast(message: "Quantity of \(productID) set to \(value)")])
            }
            // The matched case: espresso cups to 3 also answers the line and the totals.
            let three = try actionResponse(try await http.post(Self.setQuantity, json: Self.setQuantity("p-1042", 3)))
            #expect(three.mutations.count == 6)
            if case .replaceWidget(_, let line) = three.mutations[1] {
                #expect(line.content["trailing"] == "€74.70")
            }
            // Above the stepper's max: the declared 422 problem.
            let tooMany = try await http.post(Self.setQuantity, json: Self.setQuantity("p-1042", 11))
            #expect(tooMany.status == 422)
            #expect(tooMany.header("Content-Type") == "application/problem+json")
            #expect(try json(tooMany)["code"] == "quantity_out_of_range")
            // A legacy client (no stepper) gets the templated fallback, a key_value with the value as text.
            let legacy = try await http.post(
                Self.setQuantity, json: Self.setQuantity("p-3307", 4),
                headers: [
                    (
                        "X-Flow-Client",
                        "platform=android; version=2.4.0; widgets=text@1,button@1,list_row@1,key_value@1,divider@1"
                    )
                ])
            let resolved = try actionResponse(legacy)
            if case .replaceWidget(_, let widget)? = resolved.mutations.first {
                #expect(widget.type == "key_value", "\(legacy.text)")
                #expect(widget.content["value"] == "4")
            } else {
                Issue.record("expected a replaceWidget: \(legacy.text)")
            }
        }
    }

    @Test func aSessionsCartKeepsTheTemplatedAnswer() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let alice = [("X-Flow-Session", "alice")]
            let answer = try await http.post(Self.setQuantity, json: Self.setQuantity("p-3307", 6), headers: alice)
            #expect(answer.status == 200)
            let page = try PageDecoder().decodePage(try await http.get("/v1/pages/cart", headers: alice).body).value
            #expect(stepper(page, "qty.p-3307")?.content["value"] == 6)
            let other = try PageDecoder().decodePage(try await http.get("/v1/pages/cart").body).value
            #expect(stepper(other, "qty.p-3307")?.content["value"] == 1)
        }
    }

    @Test(arguments: [false, true])
    func theProductPageDiffersByProductID(mock: Bool) async throws {
        var configuration = mock ? mockConfiguration() : BFFConfiguration()
        configuration.logging.accessLog = false
        try await withTestApplication(configuration: configuration) { http in
            func title(_ target: String) async throws -> String? {
                let response = try await http.get(target)
                #expect(response.status == 200, "\(target): \(response.text)")
                return try PageDecoder().decodePage(response.body).value.title
            }
            #expect(try await title("/v1/pages/product") == "Cast Iron Skillet 26 cm")
            #expect(try await title("/v1/pages/product?productID=p-2210") == "Cast Iron Skillet 26 cm")
            #expect(try await title("/v1/pages/product?productID=p-1042") == "Stoneware Espresso Cups, set of 4")
            let cups = try await http.get("/v1/pages/product?productID=p-1042")
            let skillet = try await http.get("/v1/pages/product?productID=p-2210")
            #expect(cups.header("ETag") != skillet.header("ETag"))
            #expect(
                try await http.get(
                    "/v1/pages/product?productID=p-1042", headers: [("If-None-Match", cups.header("ETag")!)]
                )
                .status == 304)
            let unknown = try await http.get("/v1/pages/product?productID=nonexistent")
            #expect(unknown.status == 404)
            #expect(unknown.header("Content-Type") == "application/problem+json")
            #expect(try json(unknown)["code"] == "product_not_found")
            // The variant's own widgets answer actions: the cups' add-to-cart is matched by payload.
            let added = try await http.post(
                "/v1/actions/cart.add",
                json:
                    #"{"pageID": "product", "widgetID": "product.addToCart", "event": "tap", "payload": {"productID": "p-1042", "quantity": 1}}"#
            )
            #expect(
                try actionResponse(added).effects == [
                    .toast(message: "Stoneware Espresso Cups, set of 4 added to your cart")
                ])
        }
    }

    @Test func aUITestAssertsOnTheJournalByBodyFieldAndCount() async throws {
        try await withTestServer(configuration: mockConfiguration { $0.journalBodyBytes = 4_096 }) { server in
            let http = HTTPTestClient(port: server.port)
            let test1 = [("X-Flow-Session", "ui-test-1")]
            let test2 = [("X-Flow-Session", "ui-test-2")]
            _ = try await http.get("/v1/pages/cart", headers: test1)
            for value in [2, 7, 7] {
                #expect(
                    try await http.post(Self.setQuantity, json: Self.setQuantity("p-3307", value), headers: test1)
                        .status
                        == 200)
            }
            _ = try await http.post(Self.setQuantity, json: Self.setQuantity("p-3307", 7), headers: test2)
            _ = try await http.post(Self.setQuantity, json: Self.setQuantity("p-4415", 12), headers: test1)
            func count(_ query: String) async throws -> JSONValue? {
                let response = try await http.get("/__admin/journal/count?" + query)
                #expect(response.status == 200, "\(query): \(response.text)")
                return try json(response)["count"]
            }
            #expect(try await count("session=ui-test-1&path=/v1/actions/cart.*&body.value=7") == 2)
            #expect(try await count("session=ui-test-1&method=POST") == 4)
            #expect(try await count("session=ui-test-1&method=get&path=/v1/pages/*") == 1)
            #expect(try await count("body.value=7") == 3)
            #expect(try await count("body.payload.productID=p-3307&status=2xx") == 4)
            #expect(try await count("session=ui-test-1&status=422") == 1)
            #expect(try await count("session=ui-test-1&status=4xx&body.payload.productID=p-4415") == 1)
            #expect(try await count("body.widgetID=qty.*&session=ui-test-2") == 1)
            #expect(try await count("body.value=8") == 0)
            // A glob is bytes: "/" and an emoji modifier are one Character, yet the value starts with "/".
            #expect(try await count("path=%2F%F0%9F%8F%BB") == 0)
            let listed = try json(try await http.get("/__admin/journal?session=ui-test-1&body.value=7&limit=1"))
            let entries = try #require(listed["entries"]?.arrayValue)
            #expect(entries.count == 1)
            #expect(entries.first?["body"]?["value"] == 7)
            #expect(entries.first?["body"]?["payload"]?["productID"] == "p-3307")
            #expect(entries.first?["bodyTruncated"] == false)
            for bad in [
                "limit=abc", "limit=-1", "after=x", "status=abc", "method=", "method=P%20OST", "path=",
                "sessoin=ui-test-1", "body.=1",
            ] {
                let answer = try await http.get("/__admin/journal?" + bad)
                #expect(answer.status == 400, "\(bad)")
                #expect(try json(answer)["code"] == "invalid_query", "\(bad)")
            }
            let typo = try json(try await http.get("/__admin/journal?sessoin=ui-test-1"))
            #expect(typo["detail"]?.stringValue?.contains("(did you mean session?)") == true, "\(typo)")
            #expect(try await http.get("/__admin/journal/count?limit=3").status == 400)
        }
    }

    /// The journal records how many body bytes each answer sent (the preview's requests panel shows them).
    @Test func theJournalRecordsTheAnswersSize() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let http = HTTPTestClient(port: server.port)
            let page = try await http.get("/v1/pages/home", headers: [("X-Flow-Session", "sizes-1")])
            let etag = try #require(page.header("ETag"))
            let revalidated = try await http.get(
                "/v1/pages/home", headers: [("X-Flow-Session", "sizes-1"), ("If-None-Match", etag)])
            #expect(revalidated.status == 304)
            let entries = try #require(
                try json(try await http.get("/__admin/journal?session=sizes-1"))["entries"]?.arrayValue)
            #expect(entries.map { $0["status"] } == [200, 304])
            #expect(entries.map { $0["responseBytes"] } == [.number(Double(page.body.count)), 0])
        }
    }

    @Test func longBodiesAreJournaledTruncatedWithAFlag() async throws {
        try await withTestServer(configuration: mockConfiguration { $0.journalBodyBytes = 16 }) { server in
            let http = HTTPTestClient(port: server.port)
            let body = Self.setQuantity("p-3307", 7)
            _ = try await http.post(Self.setQuantity, json: body, headers: [("X-Flow-Session", "long")])
            let entry = try #require(try json(try await http.get("/__admin/journal?session=long"))["entries"]?[0])
            #expect(entry["bodyTruncated"] == true)
            #expect(entry["body"] == .string(String(body.prefix(16))))
            #expect(entry["bodyBytes"] == .number(Double(body.utf8.count)))
            // A truncated body matches no body field: the filter cannot see the rest.
            #expect(try json(try await http.get("/__admin/journal/count?body.value=7"))["count"] == 0)
        }
    }

    @Test func twoSessionsWithTheirOwnFaultRulesDoNotAffectEachOther() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let first = try await http.request(
                "PUT", "/__admin/sessions/ui-a/faults",
                headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(#"{"/v1/pages/*": "status=503"}"#.utf8))
            #expect(first.status == 200, "\(first.text)")
            #expect(try json(first)["faults"]?["/v1/pages/*"] == "status=503")
            let second = try await http.request(
                "PUT", "/__admin/sessions/ui-b/faults",
                headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(#"{"GET /v1/pages/home": "status=429; retry-after=2"}"#.utf8))
            #expect(second.status == 200, "\(second.text)")
            let a = try await http.get("/v1/pages/home", headers: [("X-Flow-Session", "ui-a")])
            let b = try await http.get("/v1/pages/home", headers: [("X-Flow-Session", "ui-b")])
            let bCart = try await http.get("/v1/pages/cart", headers: [("X-Flow-Session", "ui-b")])
            let c = try await http.get("/v1/pages/home", headers: [("X-Flow-Session", "ui-c")])
            let anonymous = try await http.get("/v1/pages/home")
            #expect(a.status == 503)
            #expect(b.status == 429)
            #expect(b.header("Retry-After") == "2")
            #expect(bCart.status == 200)
            #expect(c.status == 200)
            #expect(anonymous.status == 200)
            #expect(try json(try await http.get("/__admin/sessions/ui-a"))["faults"]?["/v1/pages/*"] == "status=503")
            #expect(
                try await http.request("DELETE", "/__admin/sessions/ui-a/faults", headers: [("X-Flow-Admin", "1")])
                    .status == 200)
            #expect(try await json(http.get("/__admin/sessions/ui-a/faults"))["faults"] == [:], "cleared, not gone")
            #expect(try await http.get("/v1/pages/home", headers: [("X-Flow-Session", "ui-a")]).status == 200)
            #expect(try await http.get("/v1/pages/home", headers: [("X-Flow-Session", "ui-b")]).status == 429)
            #expect(try json(try await http.get("/__admin/journal/count?session=ui-b&status=429"))["count"] == 2)
            // Unknown methods are refused when the rules are set, with the reason.
            for target in ["/__admin/faults", "/__admin/sessions/ui-a/faults"] {
                let refused = try await http.request(
                    "PUT", target, headers: [("Content-Type", "application/json")],
                    body: Array(#"{"FETCH /v1/pages/*": "status=503"}"#.utf8))
                #expect(refused.status == 400, "\(target)")
                #expect(refused.text.contains("unknown method"), "\(refused.text)")
            }
            #expect(try await http.get("/v1/pages/home", headers: [("X-Flow-Session", "ui-a")]).status == 200)
            // A session that is gone has no rules to read: 404, as for the session itself.
            #expect(
                try await http.request("DELETE", "/__admin/sessions/ui-a", headers: [("X-Flow-Admin", "1")]).status
                    == 200)
            let gone = try await http.get("/__admin/sessions/ui-a/faults")
            #expect(gone.status == 404)
            #expect(try json(gone)["code"] == "unknown_session")
            #expect(try await http.get("/__admin/sessions/never-seen/faults").status == 404)
        }
    }
}
