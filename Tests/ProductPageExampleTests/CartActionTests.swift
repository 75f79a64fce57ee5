import BFFServer
import BFFTesting
import Dispatch
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import ProductPageExample
import Testing

/// The example's "Add to cart" action answered in Swift (`CartActions`) against a loopback cart upstream:
/// healthy, slow (answers after the upstream timeout) and dead (closed port), and an idempotent retry.
@Suite(.serialized) struct CartActionTests {
    static let body =
        #"{"pageID": "product-live", "widgetID": "product.addToCart", "event": "tap", "payload": {"productID": "p-2210"}}"#

    /// Starts the demo upstreams and flow-bff with the product page and the cart action, loads the page once (so
    /// the server knows the provider's widgets), then runs `body`.
    func withCart(
        cartDelay: DispatchTimeInterval? = nil, cartURL: String? = nil, upstreamTimeout: Duration = .seconds(10),
        _ body: (HTTPTestClient, DemoUpstreams) async throws -> Void
    ) async throws {
        let upstreams = DemoUpstreams(cartDelay: cartDelay)
        try upstreams.start()
        defer { upstreams.shutdown() }
        try await withTestServer { server in
            let application = server.service.application
            // Upstream calls on the same kind of loop as the server (scripts/test runs the suite on both).
            let client = try HTTPClient(configuration: .init(eventLoop: server.service.server.configuration.eventLoop))
            defer { client.shutdown() }
            ProductPageProvider(
                catalogURL: upstreams.catalogURL, reviewsURL: upstreams.reviewsURL, upstreamTimeout: .seconds(10),
                metrics: application.providers.upstreamMetrics, client: client
            ).register(on: application, timeout: .seconds(30))
            CartActions(
                cartURL: cartURL ?? upstreams.cartURL, upstreamTimeout: upstreamTimeout,
                metrics: application.providers.upstreamMetrics, client: client
            ).register(on: application, timeout: .seconds(30))
            let http = HTTPTestClient(port: server.port)
            let page = try await http.get("/v1/pages/product-live?productID=p-2210")
            #expect(page.status == 200, "\(page.text)")
            let document = try PageDecoder().decodePage(page.body).value
            #expect(document.widget(withID: "cart.badge")?.content["text"] == "Cart")
            try await body(http, upstreams)
        }
    }

    @Test func aHealthyCartAnswersTheNewBadgeAndAToast() async throws {
        try await withCart { http, upstreams in
            let answer = try await http.post("/v1/actions/live.cart.add", json: Self.body)
            #expect(answer.status == 200, "\(answer.text)")
            let response = try PageDecoder().decodeActionResponse(answer.body).value
            guard case .replaceWidget(let id, let badge)? = response.mutations.first else {
                Issue.record("expected the badge, got \(response.mutations)")
                return
            }
            #expect(id == "cart.badge")
            #expect(badge.content["text"] == "Cart: 1")
            #expect(response.effects == [.toast(message: "Added to your cart (1 item)")])
            #expect(upstreams.cartItems.all == ["p-2210"])
        }
    }

    @Test func aRetryWithTheSameKeyAddsOnce() async throws {
        try await withCart { http, upstreams in
            let key = [("Idempotency-Key", "tap-1")]
            let first = try await http.post("/v1/actions/live.cart.add", json: Self.body, headers: key)
            let retry = try await http.post("/v1/actions/live.cart.add", json: Self.body, headers: key)
            #expect(first.status == 200)
            #expect(retry.status == 200)
            #expect(retry.body == first.body)
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(upstreams.cartItems.all == ["p-2210"], "the cart got the item once")
            let next = try await http.post(
                "/v1/actions/live.cart.add", json: Self.body, headers: [("Idempotency-Key", "tap-2")])
            #expect(next.status == 200)
            #expect(upstreams.cartItems.all.count == 2)
        }
    }

    @Test func aSlowCartIsA504AndADeadOneA502() async throws {
        // The cart answers after 20 s, the upstream timeout is 500 ms: the handler's upstream call times out (a timer
        // that fires late on a loaded machine still fires long before the cart answers).
        try await withCart(cartDelay: .seconds(20), upstreamTimeout: .milliseconds(500)) { http, _ in
            let answer = try await http.post("/v1/actions/live.cart.add", json: Self.body)
            #expect(answer.status == 504, "\(answer.text)")
            #expect(answer.text.contains(#""code":"upstream_timeout""#))
        }
        // A port where connections are refused for the whole test (a port bound and closed again could be
        // handed to a parallel test's server meanwhile).
        let refusing = try RefusingPort()
        let deadURL = "http://127.0.0.1:\(refusing.port)"
        try await withCart(cartURL: deadURL) { http, _ in
            let answer = try await http.post("/v1/actions/live.cart.add", json: Self.body)
            #expect(answer.status == 502, "\(answer.text)")
            #expect(answer.text.contains(#""code":"upstream_unavailable""#))
        }
        withExtendedLifetime(refusing) {}
    }
}
