import Foundation
import Testing

@testable import PageModel

@Suite struct LenientDecodingTests {
    @Test func badContentBecomesAPlaceholderWithADiagnosticAndThePageSurvives() throws {
        let decoded = try decodePage(
            envelope(
                #"""
                {"id": "p", "sections": [{"id": "s", "widgets": [
                  {"id": "ok", "type": "text", "content": {"text": "fine"}},
                  {"id": "bad", "type": "text", "content": {"text": 42}},
                  {"id": "qty", "type": "stepper", "content": {"value": 1.5}}]}]}
                """#))
        let widgets = decoded.value.sections[0].widgets
        #expect(widgets.map(\.id) == ["ok", "bad", "qty"])
        #expect(widgets[0].rendering == .content)
        #expect(widgets[1].rendering == .placeholder(code: "invalid_content"))
        #expect(widgets[1].content == ["text": 42])
        #expect(widgets[2].rendering == .placeholder(code: "invalid_content"))
        #expect(
            decoded.diagnostics == [
                .error(
                    "invalid_content", "/page/sections/0/widgets/1/content/text", widgetID: "bad",
                    "text.text must be string, found number"),
                .error(
                    "invalid_content", "/page/sections/0/widgets/2/content/value", widgetID: "qty",
                    "stepper.value must be integer, found number"),
            ])
    }

    @Test func missingRequiredFieldAndNonObjectContent() throws {
        let decoded = try decodePage(
            envelope(
                #"""
                {"id": "p", "sections": [{"id": "s", "widgets": [
                  {"id": "b", "type": "button", "content": {}},
                  {"id": "i", "type": "image", "content": "https://img.example.com/a.png"}]}]}
                """#))
        #expect(
            decoded.diagnostics.map(\.path.string) == [
                "/page/sections/0/widgets/0/content/title", "/page/sections/0/widgets/1/content",
            ])
        #expect(
            decoded.diagnostics.map(\.message) == [
                "button requires content field \"title\" (string)", "image content must be an object, found string",
            ])
    }

    @Test func unknownWidgetTypeIsKeptWithAWarning() throws {
        let decoded = try decodePage(
            envelope(
                #"{"id": "p", "sections": [{"id": "s", "widgets": [{"id": "m", "type": "map_view", "content": {"lat": 1}}]}]}"#
            ))
        let widget = try #require(decoded.value.sections[0].widgets.first)
        #expect(widget.type == "map_view")
        #expect(widget.rendering == .unknownType)
        #expect(widget.content == ["lat": 1])
        #expect(
            decoded.diagnostics == [
                .warning(
                    "unknown_widget_type", "/page/sections/0/widgets/0/type", widgetID: "m",
                    "unknown widget type \"map_view\"")
            ])
    }

    @Test func actionsDecodeByTypeAndUnknownOnesAreKept() throws {
        let decoded = try decodePage(
            envelope(
                #"""
                {"id": "p", "sections": [{"id": "s", "widgets": [{"id": "b", "type": "button", "content": {"title": "x"},
                  "actions": {"tap": {"type": "api", "name": "cart.add", "payload": {"sku": 1}},
                              "longPress": {"type": "share", "text": "hey"},
                              "change": {"type": "toast"}}}]}]}
                """#))
        let actions = decoded.value.sections[0].widgets[0].actions
        #expect(actions["tap"] == .api(name: "cart.add", payload: ["sku": 1]))
        #expect(
            actions["longPress"]
                == .unknown(
                    type: "share",
                    body: JSONObject([.init(key: "type", value: "share"), .init(key: "text", value: "hey")])))
        #expect(actions["change"] == nil)
        #expect(decoded.diagnostics.map(\.code).sorted() == ["invalid_action", "unknown_action_type"])
        #expect(
            decoded.diagnostics.first { $0.code == "invalid_action" }?.path
                == "/page/sections/0/widgets/0/actions/change/message")
    }

    @Test func everyActionTypeRoundTrips() throws {
        let actions: [Action] = [
            .toast(message: "Saved"), .dismiss, .refreshPage, .openBottomSheet(pageID: "cart", parameters: ["a": "1"]),
            .api(name: "cart.add", payload: ["sku": "42"]), .api(name: "ping"), .deeplink(url: "shop://orders/1"),
            .unknown(type: "share", body: JSONObject([.init(key: "type", value: "share")])),
        ]
        let response = Envelope.actionResponse(ActionResponse(effects: actions))
        let decoded = try PageDecoder().decodeEnvelope(response.encoded())
        #expect(decoded.value == response)
    }

    @Test(arguments: [
        (#"[]"#, "invalid_envelope", ""),
        (#"{"kind": "page"}"#, "invalid_envelope", "/schemaVersion"),
        (#"{"schemaVersion": "1", "kind": "page"}"#, "invalid_envelope", "/schemaVersion"),
        (#"{"schemaVersion": 2, "kind": "page"}"#, "unsupported_schema_version", "/schemaVersion"),
        (#"{"schemaVersion": 1, "kind": "pages"}"#, "invalid_envelope", "/kind"),
        (#"{"schemaVersion": 1}"#, "invalid_envelope", "/kind"),
        (#"{"schemaVersion": 1, "kind": "page"}"#, "invalid_envelope", "/page"),
        (#"{"schemaVersion": 1, "kind": "page", "page": {"sections": []}}"#, "invalid_envelope", "/page/id"),
        (#"{"schemaVersion": 1, "kind": "page", "page": {"id": "", "sections": []}}"#, "invalid_envelope", "/page/id"),
        (#"{"schemaVersion": 1, "kind": "page", "page": {"id": "p"}}"#, "invalid_envelope", "/page/sections"),
        (
            #"{"schemaVersion": 1, "kind": "page", "page": {"id": "p", "sections": {}}}"#, "invalid_envelope",
            "/page/sections"
        ),
        (
            #"{"schemaVersion": 1, "kind": "page", "page": {"id": "p", "sections": [3]}}"#, "invalid_envelope",
            "/page/sections/0"
        ),
        (
            #"{"schemaVersion": 1, "kind": "page", "page": {"id": "p", "sections": [], "title": 3}}"#,
            "invalid_envelope", "/page/title"
        ),
        (
            #"{"schemaVersion": 1, "kind": "page", "page": {"id": "p", "sections": [], "pagination": {}}}"#,
            "invalid_envelope", "/page/pagination/hasMore"
        ),
        (
            #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "removeWidget"}]}"#,
            "invalid_envelope", "/mutations/0/id"
        ),
        (
            #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "replaceWidget", "id": "a"}]}"#,
            "invalid_envelope", "/mutations/0/widget"
        ),
        (#"{"schemaVersion": 1, "kind": "page", "page": {"id": "p", "sections": [] "#, "invalid_json", ""),
    ])
    func brokenEnvelopesThrowWithTheirPath(_ text: String, _ code: String, _ path: String) {
        #expect {
            try PageDecoder().decodeEnvelope(Array(text.utf8))
        } throws: { error in
            let error = error as? ContractError
            return error?.code == code && error?.path.string == path
        }
    }

    @Test func decodingTheWrongKindIsAnError() {
        let text = #"{"schemaVersion": 1, "kind": "actionResponse"}"#
        let error = #expect(throws: ContractError.self) { try PageDecoder().decodePage(Array(text.utf8)) }
        #expect(error?.code == "unexpected_kind")
    }

    @Test func hasMoreWithoutPostbackIsAnErrorAndStopsPagination() throws {
        let decoded = try decodePage(
            envelope(
                #"{"id": "p", "sections": [{"id": "s", "widgets": [{"id": "d", "type": "divider"}]}], "pagination": {"hasMore": true}}"#
            ))
        #expect(decoded.value.pagination == Pagination(hasMore: false))
        #expect(decoded.diagnostics.map(\.code) == ["missing_postback"])
    }

    @Test func codableBridgeAgreesWithTheCodec() throws {
        let page = PageModel(
            id: "p", title: "T",
            sections: [Section(id: "s", widgets: [Widget(id: "t", type: "text", content: ["text": "a"])])])
        let data = try JSONEncoder().encode(page)
        #expect(try JSONDecoder().decode(PageModel.self, from: data) == page)
        #expect(try PageDecoder().decodePage(json: PageDecoder().parse(Array(data))).value == page)
    }
}
