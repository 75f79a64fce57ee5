import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// Mock mode serves pages through its own routes (scenarios, sessions); client capabilities and localization must
/// apply there exactly as in production mode.
@Suite struct MockResolutionTests {
    static let legacy = "platform=android; version=2.4.0; widgets=text,button,list_row,key_value"

    func page(_ response: HTTPTestClient.Response) throws -> PageModel {
        try PageDecoder().decodePage(response.body).value
    }

    @Test func capabilitiesAndLocalesApplyInMockModeAsInProduction() async throws {
        for mockEnabled in [true, false] {
            let configuration = mockEnabled ? mockConfiguration() : BFFConfiguration()
            try await withTestApplication(configuration: configuration) { http in
                let german = try await http.get("/v1/pages/checkout", headers: [("Accept-Language", "de")])
                #expect(try page(german).title == "Kasse", "mock \(mockEnabled)")
                #expect(german.header("Content-Language") == "de")
                let french = try await http.get("/v1/pages/checkout", headers: [("Accept-Language", "fr")])
                #expect(try page(french).title == "Checkout", "fr falls back to the default locale")
                let cart = try await http.get("/v1/pages/cart", headers: [("X-Flow-Client", Self.legacy)])
                let envelope = try PageDecoder().parse(cart.body)
                #expect((envelope["degradations"]?.arrayValue?.count ?? 0) > 0, "mock \(mockEnabled)")
                let types = Set(try page(cart).sections.flatMap { $0.widgets.map(\.type) })
                #expect(!types.contains("stepper"))
            }
        }
    }

    @Test func aSessionCopyIsResolvedForTheClientToo() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let session = ("X-Flow-Session", "resolved-session")
            let removed = try await http.post(
                "/v1/actions/cart.remove.p-1042",
                json: #"{"pageID": "cart", "widgetID": "remove.p-1042", "event": "tap"}"#, headers: [session])
            #expect(removed.status == 200)
            let cart = try await http.get("/v1/pages/cart", headers: [session, ("X-Flow-Client", Self.legacy)])
            let document = try page(cart)
            let ids = document.sections.flatMap { $0.widgets.map(\.id) }
            #expect(!ids.contains("line.p-1042"), "the session's copy")
            #expect(!document.sections.flatMap { $0.widgets.map(\.type) }.contains("stepper"), "resolved for legacy")
            let envelope = try PageDecoder().parse(cart.body)
            #expect(envelope["degradations"]?.arrayValue != nil)
        }
    }
}
