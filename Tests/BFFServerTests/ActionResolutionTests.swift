import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// Api action answers are resolved for the declared client like pages, so a mutation never hands an old app a
/// widget it cannot render.
@Suite struct ActionResolutionTests {
    static let minimal = "platform=web; version=1.0.0; widgets=text@1,image@1,button@1,list_row@1,key_value@1"
    static let placeOrder = #"{"pageID": "checkout", "widgetID": "checkout.placeOrder", "event": "tap"}"#

    func widgetTypes(_ response: ActionResponse) -> Set<String> {
        var types: Set<String> = []
        func walk(_ widgets: [Widget]) {
            for widget in widgets {
                types.insert(widget.type)
                walk(widget.children)
            }
        }
        for mutation in response.mutations {
            switch mutation {
            case .replacePage(let page):
                walk(page.header + page.sections.flatMap(\.widgets) + page.footer)
            case .appendSections(let sections), .prependSections(let sections): walk(sections.flatMap(\.widgets))
            case .replaceWidget(_, let widget): walk([widget])
            case .removeWidget: break
            }
        }
        return types
    }

    @Test func aMinimalClientGetsAnActionAnswerItCanRender() async throws {
        try await withTestServer { server in
            let http = HTTPTestClient(port: server.port)
            let plain = try await http.post("/v1/actions/checkout.placeOrder", json: Self.placeOrder)
            let plainResponse = try PageDecoder().decodeActionResponse(plain.body).value
            #expect(widgetTypes(plainResponse).contains("empty_state"), "the authored answer")
            #expect(try PageDecoder().parse(plain.body)["degradations"] == nil)

            let resolved = try await http.post(
                "/v1/actions/checkout.placeOrder", json: Self.placeOrder, headers: [("X-Flow-Client", Self.minimal)])
            #expect(resolved.status == 200)
            let response = try PageDecoder().decodeActionResponse(resolved.body).value
            let capabilities = try ClientCapabilities(header: Self.minimal)
            #expect(widgetTypes(response).allSatisfy { capabilities.renders($0) }, "\(widgetTypes(response))")
            let degradations = try #require(try PageDecoder().parse(resolved.body)["degradations"]?.arrayValue)
            #expect(!degradations.isEmpty)
            #expect(resolved.header("Cache-Control") == "no-store")
        }
    }

    @Test func aReplacementWithoutUsableFallbackBecomesARemoval() throws {
        let response = ActionResponse(
            mutations: [
                .replaceWidget(id: "qty", widget: Widget(id: "qty", type: "stepper", content: ["value": 2])),
                .replaceWidget(id: "t", widget: Widget(id: "t", type: "text", content: ["text": "ok"])),
                .removeWidget(id: "gone"),
            ], effects: [.toast(message: "Saved")])
        let resolver = PageResolver(capabilities: try ClientCapabilities(header: Self.minimal))
        let (resolved, degradations) = resolver.resolve(response)
        #expect(
            resolved.mutations == [
                .removeWidget(id: "qty"),
                .replaceWidget(id: "t", widget: Widget(id: "t", type: "text", content: ["text": "ok"])),
                .removeWidget(id: "gone"),
            ])
        #expect(degradations.map(\.code) == ["widget_dropped"])
        #expect(resolved.effects == [.toast(message: "Saved")])
    }
}
