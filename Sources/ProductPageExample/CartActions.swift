import BFFServer
import HTTPCore
import PageModel

/// The example's api action in Swift: `live.cart.add` (the product page's "Add to cart" button) posts the product
/// to the cart upstream (`POST /cart/items` → `{"count"}`) and answers with the cart badge showing the new count
/// and a toast. A dead cart is a 502 `upstream_unavailable`, a slow one a 504 `upstream_timeout`; a retried request
/// with the same `Idempotency-Key` is answered once, so the cart never gets the item twice.
public struct CartActions: Sendable {
    public static let add = "live.cart.add"
    public let cart: UpstreamClient

    /// - Parameters:
    ///   - upstreamTimeout: timeout of the cart call (never retried: adding is not idempotent). Default 300 ms.
    ///   - metrics: the upstream metrics sink (`application.providers.upstreamMetrics`).
    ///   - client: the HTTP client the cart is called through (default the process's shared one).
    public init(
        cartURL: String, upstreamTimeout: Duration = .milliseconds(300), metrics: UpstreamMetrics = UpstreamMetrics(),
        client: HTTPClient = .shared
    ) {
        cart = UpstreamClient(
            UpstreamConfiguration(name: "cart", baseURL: cartURL, timeout: upstreamTimeout, retries: 0),
            metrics: metrics, client: client)
    }

    /// Registers `live.cart.add` on `application` (handler timeout `timeout`, default 1 s).
    public func register(on application: BFFApplication, timeout: Duration = .seconds(1)) {
        application.actions.register(Self.add, options: ActionHandlerOptions(timeout: timeout)) { context in
            try await answer(context)
        }
    }

    /// The badge shown in the product page's header, before anything was added.
    public static let emptyBadge = badge(count: nil)

    static func badge(count: Int?) -> Widget {
        .text(id: "cart.badge", count.map { "Cart: \($0)" } ?? "Cart", style: "caption")
    }

    public func answer(_ context: ActionRequestContext) async throws -> ActionResponse {
        guard case .string(let productID)? = context.request.payload?["productID"] else {
            throw PageProviderError.invalidParameter("payload.productID is required")
        }
        let response: UpstreamResponse
        do {
            response = try await cart.send(
                "POST", "/cart/items", body: JSONWriter().write(["productID": .string(productID)]),
                headers: ["Content-Type": "application/json"], requestID: context.requestID,
                traceContext: context.traceContext)
        } catch {
            throw PageProviderError.upstream(error)
        }
        guard let count = (try? JSONParser().parse(response.body))?["count"]?.intValue else {
            throw PageProviderError.upstream(
                UpstreamError(upstream: "cart", code: "upstream_invalid_json", message: "the cart answers {\"count\"}"))
        }
        return ActionResponse(
            mutations: [.replaceWidget(id: "cart.badge", widget: Self.badge(count: count))],
            effects: [.toast(message: "Added to your cart (\(count) item\(count == 1 ? "" : "s"))")])
    }
}
