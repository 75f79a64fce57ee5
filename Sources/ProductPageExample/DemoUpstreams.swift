import Foundation
import HTTPCore
import PageModel
import Synchronization

/// Three tiny upstream JSON services on loopback (catalog, reviews and cart), for running the example without
/// real services and for its tests. `reviewsDelay` answers reviews late (a deferred reply completed by
/// `DispatchQueue.asyncAfter`), to show a slow upstream degrading one section; `cartDelay` does the same for the
/// cart.
public final class DemoUpstreams: Sendable {
    public let catalog: HTTPServer
    public let reviews: HTTPServer
    /// `POST /cart/items` with `{"productID"}` → `{"count"}`: the number of items added so far.
    public let cart: HTTPServer
    /// Product ids added to the cart so far.
    public let cartItems = CartItems()

    public static let products: [String: String] = [
        "p-2210":
            #"{"id":"p-2210","title":"Cast Iron Skillet 26 cm","price":"€39.00","imageURL":"https://img.example.com/products/p-2210/hero@3x.jpg","description":"Pre-seasoned and oven-safe to 260 °C."}"#,
        "p-1042": #"{"id":"p-1042","title":"Stoneware Espresso Cups, set of 4","price":"€24.90"}"#,
    ]

    /// - Parameters:
    ///   - reviewsDelay: delay before reviews answer; `nil` answers at once.
    ///   - cartDelay: delay before the cart answers; `nil` answers at once.
    ///   - seen: called with each upstream request (for tests checking request-id propagation).
    public init(
        reviewsDelay: DispatchTimeInterval? = nil, cartDelay: DispatchTimeInterval? = nil,
        seen: @escaping @Sendable (HTTPRequest) -> Void = { _ in }
    ) {
        catalog = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            seen(request)
            let id = String(request.path.split(separator: "/").last ?? "")
            guard request.path.hasPrefix("/products/"), let body = DemoUpstreams.products[id] else {
                return .json(Array(#"{"error":"not found"}"#.utf8), status: .notFound)
            }
            return .json(Array(body.utf8))
        }
        reviews = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            seen(request)
            let body = Array(
                #"{"rating":4.8,"count":312,"items":[{"author":"Maria","text":"Heats evenly, worth the weight."},{"author":"Jonas","text":"Great sear on steaks."}]}"#
                    .utf8)
            guard let reviewsDelay else { return .json(body) }
            return .deferred { promise in
                DispatchQueue.global().asyncAfter(deadline: .now() + reviewsDelay) {
                    promise.succeed(.json(body))
                }
            }
        }
        let items = cartItems
        cart = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            seen(request)
            guard request.method == .post, request.path == "/cart/items",
                case .string(let productID)? = (try? JSONParser().parse(request.body))?["productID"]
            else { return .json(Array(#"{"error":"bad request"}"#.utf8), status: .badRequest) }
            let count = items.add(productID)
            let reply = HTTPReply.json(Array(#"{"count":\#(count)}"#.utf8))
            guard let cartDelay else { return reply }
            return .deferred { promise in
                DispatchQueue.global().asyncAfter(deadline: .now() + cartDelay) { promise.complete(with: reply) }
            }
        }
    }

    public func start() throws {
        try catalog.start()
        try reviews.start()
        try cart.start()
    }

    public var catalogURL: String { "http://" + catalog.localAddress }
    public var reviewsURL: String { "http://" + reviews.localAddress }
    public var cartURL: String { "http://" + cart.localAddress }

    public func shutdown() {
        catalog.shutdown(drainTimeout: .milliseconds(100))
        reviews.shutdown(drainTimeout: .milliseconds(100))
        cart.shutdown(drainTimeout: .milliseconds(100))
    }
}

/// The demo cart's contents.
public final class CartItems: Sendable {
    private let items = Mutex<[String]>([])

    /// Adds `productID`; returns the number of items now in the cart.
    func add(_ productID: String) -> Int {
        items.withLock { items in
            items.append(productID)
            return items.count
        }
    }

    /// The product ids added so far, in order.
    public var all: [String] { items.withLock { $0 } }
}
