import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Testing

@testable import BFFServer

/// `when` conditions and `{{…}}` templates: parsing, matching, filling, and the load-time diagnostics
/// `flow-bff check` prints.
@Suite struct RequestMatchingTests {
    static let facts = RequestFacts(
        action: ActionRequest(
            name: "cart.setQuantity", pageID: "cart", widgetID: "qty.p-1", event: "change", value: 3,
            payload: ["productID": "p-1", "lines": [["sku": "a"], ["sku": "b"]]]),
        query: ["tier": "gold", "n": "12"], headers: ["X-Tier": "gold"], sessionID: "s-1", scenario: "empty")

    func segments(_ text: String) throws -> [ResponseTemplate.Segment] { try ResponseTemplate.parseSegments(text) }

    func fill(_ value: JSONValue) -> JSONValue {
        var errors: [MatchingError] = []
        let template = ResponseTemplate.parse(value, errors: &errors)
        #expect(errors.isEmpty)
        return template?.render(Self.facts) ?? value
    }

    @Test func placeholdersFillFromTheRequest() {
        #expect(fill("{{request.value}}") == 3, "a whole-value placeholder keeps the number")
        #expect(fill("{{ request.value | text }}") == "3")
        #expect(fill("×{{request.value}}") == "×3")
        #expect(fill("{{request.widgetID}}/{{request.event}}/{{request.pageID}}") == "qty.p-1/change/cart")
        #expect(fill("{{request.payload.lines.1.sku}}") == "b")
        #expect(fill("{{request.payload.productID}}@{{request.query.tier}}") == "p-1@gold")
        #expect(fill("{{request.header.x-tier}} {{session.id}} {{session.scenario}}") == "gold s-1 empty")
        #expect(fill("[{{request.payload.missing}}]") == "[]", "an absent value inserts nothing")
        #expect(fill("{{request.payload.missing}}") == "")
        #expect(fill(#"\{{request.value}} is {{request.value}}"#) == "{{request.value}} is 3")
        #expect(fill(["a": ["b": "{{request.value}}"], "fixed": 1]) == ["a": ["b": 3], "fixed": 1])
        #expect(fill(["lines": "{{request.payload.lines}}"]) == ["lines": [["sku": "a"], ["sku": "b"]]])
    }

    @Test func aValueIsNeverExpandedTwice() {
        var facts = Self.facts
        facts.query["evil"] = "{{session.id}}"
        var errors: [MatchingError] = []
        let template = ResponseTemplate.parse("q={{request.query.evil}}", errors: &errors)
        #expect(template?.render(facts) == "q={{session.id}}")
    }

    @Test(arguments: [
        ("{{request.valeu}}", "unknown_placeholder", "did you mean request.value?"),
        ("{{requst.payload.orderID}}", "unknown_placeholder", "did you mean request.payload.orderID?"),
        ("{{request.qeury.page}}", "unknown_placeholder", "did you mean request.query.page?"),
        ("{{request.query.}}", "unknown_placeholder", "unknown request value"),
        ("{{request.payload..x}}", "unknown_placeholder", "empty payload path segment"),
        ("{{request.value", "invalid_template", "without a closing"),
        ("{{}}", "invalid_template", "empty placeholder"),
        ("{{request.value | upper}}", "invalid_template", "unknown filter"),
    ])
    func badTemplatesAreLoadErrors(_ text: String, _ code: String, _ message: String) {
        #expect {
            _ = try segments(text)
        } throws: { error in
            guard let error = error as? MatchingError else { return false }
            return error.code == code && error.message.contains(message)
        }
    }

    func condition(_ json: String) throws -> RequestCondition {
        try RequestCondition(parsing: try JSONParser().parse(Array(json.utf8)))
    }

    @Test(arguments: [
        (#"{}"#, true),
        (#"{"request.value": 3}"#, true),
        (#"{"request.value": "3"}"#, true),
        (#"{"request.value": 4}"#, false),
        (#"{"request.value": {"gte": 3, "lt": 4}}"#, true),
        (#"{"request.value": {"gt": 3}}"#, false),
        (#"{"request.query.n": {"gt": 10}}"#, true),
        (#"{"request.query.n": 12}"#, true),
        (#"{"request.widgetID": {"glob": "qty.*"}}"#, true),
        (#"{"request.widgetID": {"glob": "line.*"}}"#, false),
        (#"{"request.payload.productID": {"in": ["p-0", "p-1"]}}"#, true),
        (#"{"request.payload.lines": {"equals": [{"sku": "a"}, {"sku": "b"}]}}"#, true),
        (#"{"request.payload.missing": {"present": false}}"#, true),
        (#"{"request.payload.missing": null}"#, true),
        (#"{"request.header.X-TIER": "gold", "session.scenario": "empty", "session.id": "s-1"}"#, true),
        (#"{"request.header.X-Tier": "gold", "request.event": "tap"}"#, false),
    ])
    func conditionsMatch(_ json: String, _ expected: Bool) throws {
        #expect(try condition(json).matches(Self.facts) == expected)
    }

    static func cartFile(_ actions: String, variants: String = "") -> String {
        #"""
        {"schemaVersion": 1, "kind": "page", "page": {"id": "shop", "title": "Shop", "sections": [{"id": "s", "widgets": [
          {"id": "qty", "type": "stepper", "content": {"value": 1}, "actions": {"change": {"type": "api", "name": "shop.set"}}}]}]},
         "server": {\#(variants)"actions": {"shop.set": \#(actions)}}}
        """#
    }

    func diagnostics(_ files: [String: String]) throws -> [String] {
        PageCatalog.load(directory: try temporaryPages(files)).diagnostics.filter { $0.diagnostic.severity == .error }
            .map { "\($0.file): \($0.diagnostic.path): \($0.diagnostic.code)" }
    }

    @Test func checkReportsTemplateAndMatchingErrorsWithFileAndPath() throws {
        let envelope =
            #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [], "effects": [{"type": "toast", "message": "{{request.vlaue}}"}]}"#
        #expect(
            try diagnostics(["shop.json": Self.cartFile(envelope)]) == [
                "shop.json: /server/actions/shop.set/effects/0/message: unknown_placeholder"
            ])
        let matched = #"""
            {"responses": [
              {"when": {"request.valeu": 1}, "response": {"schemaVersion": 1, "kind": "actionResponse"}},
              {"when": {"request.value": {"greater": 1}}, "response": {"schemaVersion": 1, "kind": "actionResponse"}},
              {"when": {"request.value": 2}, "problem": {"status": 200, "code": "x"}},
              {"response": {"schemaVersion": 1, "kind": "actionResponse"}, "problem": {"status": 409, "code": "x"}},
              {"when": {"request.value": 3}, "response": {"schemaVersion": 1, "kind": "actionResponse"}}
            ]}
            """#
        #expect(
            try diagnostics(["shop.json": Self.cartFile(matched)]) == [
                "shop.json: /server/actions/shop.set/responses/0/when/request.valeu: unknown_condition",
                "shop.json: /server/actions/shop.set/responses/1/when/request.value/greater: unknown_operator",
                "shop.json: /server/actions/shop.set/responses/2/problem/status: invalid_problem",
                "shop.json: /server/actions/shop.set/responses/3: unreachable_response",
                "shop.json: /server/actions/shop.set/responses/3: invalid_setting",
                "shop.json: /server/actions/shop.set/responses/4: missing_default_response",
            ])
        let plain = #"{"schemaVersion": 1, "kind": "actionResponse"}"#
        let variants =
            #""variants": [{"when": {"request.header.X": "1"}}, {"when": {"request.query.id": "1"}, "scenario": "nope"}], "#
        #expect(
            try diagnostics(["shop.json": Self.cartFile(plain, variants: variants)]) == [
                "shop.json: /server/variants/0/when/request.header.X: unsupported_condition"
            ])
        let onlyScenario = #""variants": [{"when": {"request.query.id": "1"}, "scenario": "nope"}], "#
        #expect(
            try diagnostics(["shop.json": Self.cartFile(plain, variants: onlyScenario)]) == [
                "shop.json: /server/variants/0/scenario: unknown_scenario"
            ])
    }

    /// A filled answer's error is the request's doing only when it lies in what a placeholder inserted (at the
    /// templated string or inside a value it filled); anywhere else it is the page file's.
    @Test func errorsAreTracedToTheRequestValuesTheyLieIn() throws {
        var errors: [MatchingError] = []
        let template = try #require(
            ResponseTemplate.parse(
                [
                    "mutations": [
                        ["widget": ["content": ["value": "{{request.value}}", "note": "{{request.payload}}"]]]
                    ],
                    "effects": [["message": "{{request.payload.productID}} at {{request.query.tier}}"]],
                ], errors: &errors))
        #expect(errors.isEmpty)
        #expect(template.insertedValues(at: "/mutations/0/widget/content/value") == [.value])
        #expect(template.insertedValues(at: "/mutations/0/widget/content/note/lines/0") == [.payload([])])
        #expect(template.insertedValues(at: "/effects/0/message") == [.payload(["productID"]), .query("tier")])
        #expect(template.insertedValues(at: "/mutations/0/widget/content").isEmpty, "an ancestor is fixed text")
        #expect(template.insertedValues(at: "/mutations/0/widget/content/valueX").isEmpty, "not a path prefix")
        func culprits(_ paths: [JSONPointer]) -> [RequestValueName] {
            FilledAnswerError(errors: paths.map { .error("invalid_content", $0, "x") }, template: template).culprits
        }
        #expect(
            culprits(["/mutations/0/widget/content/value", "/effects/0/message"]) == [
                .value, .payload(["productID"]), .query("tier"),
            ])
        #expect(culprits(["/mutations/0/widget/content/value", "/mutations/0/widget/type"]).isEmpty)
        #expect(RequestValueName.payload(["lines", "0"]).bodyPointer == "/payload/lines/0")
        #expect(RequestValueName.query("tier").bodyPointer == nil)
        #expect(RequestValueName.header("X-Tier").requestMember == "the header X-Tier")
    }

    @Test func aTemplatedValueIsCheckedWhenItIsFilled() async throws {
        let stepper = #"""
            {"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "replaceWidget", "id": "{{request.widgetID}}",
             "widget": {"id": "{{request.widgetID}}", "type": "stepper", "content": {"value": "{{request.payload.n}}"}}}]}
            """#
        #expect(try diagnostics(["shop.json": Self.cartFile(stepper)]).isEmpty, "placeholders are checked when filled")
        let pages = try temporaryPages(["shop.json": Self.cartFile(stepper)])
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        try await withTestApplication(pages: pages, configuration: configuration) { http in
            func send(_ n: String) async throws -> HTTPTestClient.Response {
                try await http.post(
                    "/v1/actions/shop.set",
                    json:
                        #"{"pageID": "shop", "widgetID": "qty", "event": "change", "value": 2, "payload": {"n": \#(n)}}"#
                )
            }
            let good = try await send("4")
            #expect(good.status == 200, "\(good.text)")
            // The request's value made the answer invalid: a 422 naming the request member, never the answer's
            // internals (issue 27: it was a 500 showing /mutations/0/widget/content/value).
            let bad = try await send(#""four""#)
            #expect(bad.status == 422)
            #expect(try json(bad)["code"] == "invalid_action_value")
            #expect(try json(bad)["path"] == "/payload/n")
            #expect(try json(bad)["diagnostics"] == nil)
            #expect(!bad.text.contains("/mutations"), "\(bad.text)")
            #expect(bad.text.contains("/payload/n (string)"), "\(bad.text)")
            let absent = try await http.post(
                "/v1/actions/shop.set", json: #"{"pageID": "shop", "widgetID": "qty", "event": "change", "value": 2}"#)
            #expect(absent.status == 422, "\(absent.text)")
            #expect(try json(absent)["path"] == "/payload/n", "\(absent.text)")
        }
    }

    @Test func answersMatchHeadersQuerySessionAndScenarioOnALiveMock() async throws {
        let toast = { (text: String) in
            #"{"schemaVersion": 1, "kind": "actionResponse", "effects": [{"type": "toast", "message": "\#(text)"}]}"#
        }
        let matched = #"""
            {"responses": [
              {"when": {"session.scenario": "outage"}, "problem": {"status": 503, "code": "cart_down"}},
              {"when": {"request.header.X-Tier": "gold"}, "response": \#(toast("gold {{request.value}}"))},
              {"when": {"request.query.promo": {"present": true}}, "response": \#(toast("promo {{request.query.promo}}"))},
              {"when": {"session.id": {"glob": "vip-*"}}, "response": \#(toast("hello {{session.id}}"))},
              {"response": \#(toast("plain {{request.value}} \\\\{{literal}}"))}
            ]}
            """#
        let pages = try temporaryPages(["shop.json": Self.cartFile(matched)])
        try await withTestApplication(pages: pages, configuration: mockConfiguration()) { http in
            let body = #"{"pageID": "shop", "widgetID": "qty", "event": "change", "value": 2}"#
            func message(_ target: String = "/v1/actions/shop.set", _ headers: [(String, String)] = []) async throws
                -> String?
            {
                let answer = try await http.post(target, json: body, headers: headers)
                guard answer.status == 200 else {
                    return "\(answer.status) \(try json(answer)["code"]?.stringValue ?? "")"
                }
                if case .toast(let text)? = try PageDecoder().decodeActionResponse(answer.body).value.effects.first {
                    return text
                }
                return nil
            }
            let message1 = try await message()
            #expect(message1 == "plain 2 {{literal}}")
            let message2 = try await message("/v1/actions/shop.set", [("x-tier", "gold")])
            #expect(message2 == "gold 2")
            let message3 = try await message("/v1/actions/shop.set?promo=spring")
            #expect(message3 == "promo spring")
            let message4 = try await message("/v1/actions/shop.set", [("X-Flow-Session", "vip-7")])
            #expect(message4 == "hello vip-7")
            let message5 = try await message("/v1/actions/shop.set", [("X-Flow-Scenario", "outage")])
            #expect(message5 == "503 cart_down")
            let message6 = try await message("/v1/actions/shop.set?__scenario=outage")
            #expect(message6 == "503 cart_down")
            #expect(
                try json(try await http.get("/__admin/journal/count?status=503&path=/v1/actions/shop.*"))["count"] == 2)
        }
    }
}
