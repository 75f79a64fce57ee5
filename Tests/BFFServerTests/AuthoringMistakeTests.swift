import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// The authoring mistakes issue 33 found passing `flow-bff check --strict` silently, each now a finding of the
/// load (so `check`, the reload log and `/__admin/status` report it) or a problem answer on the wire.
@Suite struct AuthoringMistakeTests {
    /// An orders screen: one cancel button per order, whose answer depends on the order id in the payload.
    static func ordersFile(when condition: String = "request.payload.orderID", message: String = "Order cancelled")
        -> String
    {
        #"""
        {"schemaVersion": 1, "kind": "page", "page": {"id": "orders", "title": "Orders", "sections": [{"id": "list", "widgets": [
          {"id": "row.o-1001", "type": "list_row", "content": {"title": "Order o-1001"}},
          {"id": "cancel.o-1001", "type": "button", "content": {"title": "Cancel"},
           "actions": {"tap": {"type": "api", "name": "orders.cancel", "payload": {"orderID": "o-1001", "lines": [{"sku": "s-1"}]}}}}]}]},
         "server": {"actions": {"orders.cancel": {"responses": [
           {"when": {"\#(condition)": "o-0001"}, "problem": {"status": 409, "code": "already_shipped"}},
           {"response": {"schemaVersion": 1, "kind": "actionResponse",
             "mutations": [{"type": "replaceWidget", "id": "cancel.{{request.payload.orderID}}",
                            "widget": {"id": "cancel.{{request.payload.orderID}}", "type": "text", "content": {"text": "Cancelled"}}}],
             "effects": [{"type": "toast", "message": "\#(message)"}]}}]}}}}
        """#
    }

    func findings(_ files: [String: String]) throws -> [FileDiagnostic] {
        PageCatalog.load(directory: try temporaryPages(files)).diagnostics
    }

    @Test func theBundledShapeHasNoFindings() throws {
        let clean = try findings([
            "orders.json": Self.ordersFile(
                message: "Order {{request.payload.orderID}}, {{request.payload.lines.0.sku}}")
        ])
        #expect(clean.isEmpty, "\(clean.map(\.description))")
    }

    @Test func aPayloadPathNoWidgetSendsIsWarnedWithTheOneMeant() throws {
        let found = try findings([
            "orders.json": Self.ordersFile(
                when: "request.payload.orderId", message: "Order {{request.payload.orderNumber}} cancelled")
        ])
        let warnings = found.filter { $0.diagnostic.code == "unknown_payload_path" }
        #expect(warnings.allSatisfy { $0.diagnostic.severity == .warning && $0.file == "orders.json" })
        #expect(
            warnings.map(\.diagnostic.path.string) == [
                "/server/actions/orders.cancel/responses/0/when/request.payload.orderId",
                "/server/actions/orders.cancel/responses/1/response/effects/0/message",
            ])
        #expect(warnings.first?.diagnostic.message.contains("(did you mean request.payload.orderID?)") == true)
        #expect(warnings.first?.position != nil, "a position in the file, for file:line:column")
        #expect(
            warnings.last?.diagnostic.message.contains("payloads hold: lines, lines.*, lines.*.sku, orderID") == true)
    }

    @Test func aPlaceholderInPageContentIsWarned() throws {
        let page = Self.ordersFile().replacingOccurrences(
            of: #""title": "Order o-1001""#, with: #""title": "Order {{request.payload.orderID}}""#)
        let found = try findings(["orders.json": page])
        #expect(found.map(\.diagnostic.code) == ["placeholder_outside_answer"])
        #expect(found.first?.diagnostic.path.string == "/page/sections/0/widgets/0/content/title")
        #expect(found.first?.diagnostic.message.contains("filled only in server.actions answers") == true)
    }

    @Test func aFilledTargetThePageDoesNotHaveIsAProblemNamingIt() async throws {
        let pages = try temporaryPages(["orders.json": Self.ordersFile()])
        try await withTestApplication(pages: pages, configuration: mockConfiguration()) { http in
            func cancel(_ payload: String) async throws -> HTTPTestClient.Response {
                try await http.post(
                    "/v1/actions/orders.cancel",
                    json: #"{"pageID": "orders", "widgetID": "cancel.o-1001", "event": "tap"\#(payload)}"#)
            }
            let good = try await cancel(#", "payload": {"orderID": "o-1001"}"#)
            #expect(good.status == 200, "\(good.text)")
            // Before: 200 with a replaceWidget of cancel.o-9999, which no device can apply.
            let missing = try await cancel(#", "payload": {"orderID": "o-9999"}"#)
            #expect(missing.status == 422, "\(missing.text)")
            #expect(try json(missing)["code"] == "invalid_action_value")
            #expect(try json(missing)["path"] == "/payload/orderID")
            #expect(missing.text.contains(#"no widget \"cancel.o-9999\" on page \"orders\""#), "\(missing.text)")
            // Before: 200 with a target "cancel." and a toast "Order  cancelled".
            let absent = try await cancel("")
            #expect(absent.status == 422, "\(absent.text)")
            #expect(try json(absent)["path"] == "/payload/orderID")
            #expect(absent.text.contains("/payload/orderID (absent)"), "\(absent.text)")
        }
    }

    @Test func aFaultRuleThatMatchesNoRouteIsWarned() async throws {
        let pages = try temporaryPages(["orders.json": Self.ordersFile()])
        try await withTestApplication(pages: pages, configuration: mockConfiguration()) { http in
            let put = try await http.request(
                "PUT", "/__admin/faults", headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(
                    #"{"/v1/pages/ordres": "status=503", "POST /v1/actions/orders.*": "reset", "/v1/pages/o*": "latency=1ms"}"#
                        .utf8))
            #expect(put.status == 200)
            let warnings = try #require(try json(put)["warnings"]?.arrayValue, "\(put.text)")
            #expect(
                warnings == [
                    #"fault rule "/v1/pages/ordres" matches no route of this server (did you mean /v1/pages/orders?); it simulates nothing"#
                ])
            let session = try await http.request(
                "PUT", "/__admin/sessions/ui-1/faults",
                headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(#"{"GET /v1/actions/orders.cancel": "reset"}"#.utf8))
            #expect(session.status == 200)
            #expect(try json(session)["warnings"]?.arrayValue?.count == 1, "actions are POSTed: \(session.text)")
        }
    }
}

/// The review's edge cases: legal pages that must stay silent, and findings that must point where they are.
@Suite struct AuthoringMistakeEdgeTests {
    func findings(_ files: [String: String]) throws -> [FileDiagnostic] {
        PageCatalog.load(directory: try temporaryPages(files)).diagnostics
    }

    @Test func aSingleMatchedAnswerIsLocatedUnderResponses() throws {
        let page = AuthoringMistakeTests.ordersFile(message: "Order {{request.payload.orderNo}}")
            .replacingOccurrences(
                of:
                    #"{"when": {"request.payload.orderID": "o-0001"}, "problem": {"status": 409, "code": "already_shipped"}},"#,
                with: "")
        let found = try findings(["orders.json": page])
        let warning = try #require(found.first { $0.diagnostic.code == "unknown_payload_path" }, "\(found)")
        #expect(
            warning.diagnostic.path.string == "/server/actions/orders.cancel/responses/0/response/effects/0/message")
        #expect(warning.position != nil)
    }

    @Test func aDuplicateIdNamesBothPositions() throws {
        let page = AuthoringMistakeTests.ordersFile().replacingOccurrences(
            of: #"{"id": "cancel.o-1001", "type": "button""#, with: #"{"id": "row.o-1001", "type": "button""#)
        let found = try findings(["orders.json": page])
        let duplicate = try #require(found.first { $0.diagnostic.code == "duplicate_id" }, "\(found)")
        #expect(duplicate.position?.line == 3, "the second holder")
        #expect(
            duplicate.diagnostic.message.contains(#"already used in this scope by /page/sections/0/widgets/0 (2:3);"#),
            "the first holder, at its line and column: \(duplicate.diagnostic.message)")
    }

    @Test func aNumericPayloadKeyAndOtherBracesAreLegal() throws {
        let page = AuthoringMistakeTests.ordersFile(when: "request.payload.2024")
            .replacingOccurrences(of: #""lines": [{"sku": "s-1"}]"#, with: #""2024": true"#)
            .replacingOccurrences(
                of: #""title": "Order o-1001""#, with: #""title": "Links look like https://x.example/{{id}}""#)
        let found = try findings(["orders.json": page])
        #expect(found.isEmpty, "\(found.map(\.description))")
    }

    /// A widget an answer brings with a templated id (`undo.{{request.payload.orderID}}`) can fire actions and be
    /// targeted once filled — in production too, where no session copy holds the filled id.
    @Test func aFilledIdFromAnAnswerIsAWidgetADeviceCanHold() async throws {
        let page = #"""
            {"schemaVersion": 1, "kind": "page", "page": {"id": "orders", "title": "Orders", "sections": [{"id": "list", "widgets": [
              {"id": "cancel.o-1001", "type": "button", "content": {"title": "Cancel"},
               "actions": {"tap": {"type": "api", "name": "orders.cancel", "payload": {"orderID": "o-1001"}}}}]}]},
             "server": {"actions": {
               "orders.cancel": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [
                 {"type": "replaceWidget", "id": "cancel.{{request.payload.orderID}}", "widget": {
                   "id": "undo.{{request.payload.orderID}}", "type": "button", "content": {"title": "Undo"},
                   "actions": {"tap": {"type": "api", "name": "orders.undo", "payload": {"orderID": "{{request.payload.orderID}}"}}}}}]},
               "orders.undo": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [
                 {"type": "removeWidget", "id": "undo.{{request.payload.orderID}}"}]}}}}
            """#
        #expect(try findings(["orders.json": page]).isEmpty)
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        try await withTestApplication(pages: try temporaryPages(["orders.json": page]), configuration: configuration) {
            http in
            let undo = try await http.post(
                "/v1/actions/orders.undo",
                json:
                    #"{"pageID": "orders", "widgetID": "undo.o-1001", "event": "tap", "payload": {"orderID": "o-1001"}}"#
            )
            #expect(undo.status == 200, "\(undo.text)")
            let stranger = try await http.post(
                "/v1/actions/orders.undo",
                json:
                    #"{"pageID": "orders", "widgetID": "redo.o-1001", "event": "tap", "payload": {"orderID": "o-1001"}}"#
            )
            #expect(stranger.status == 400)
            #expect(try json(stranger)["code"] == "unknown_widget")
        }
    }
}
