import Foundation
import HTTPCore

/// Two tiny upstream JSON services on loopback (catalog and reviews), for running the example without real
/// services and for its tests. `reviewsDelay` answers reviews late (a deferred reply completed by
/// `DispatchQueue.asyncAfter`), to show a slow upstream degrading one section.
public final class DemoUpstreams: Sendable {
    public let catalog: HTTPServer
    public let reviews: HTTPServer

    public static let products: [String: String] = [
        "p-2210":
            #"{"id":"p-2210","title":"Cast Iron Skillet 26 cm","price":"€39.00","imageURL":"https://img.example.com/products/p-2210/hero@3x.jpg","description":"Pre-seasoned and oven-safe to 260 °C."}"#,
        "p-1042": #"{"id":"p-1042","title":"Stoneware Espresso Cups, set of 4","price":"€24.90"}"#,
    ]

    /// - Parameters:
    ///   - reviewsDelay: delay before reviews answer; `nil` answers at once.
    ///   - seen: called with each upstream request (for tests checking request-id propagation).
    public init(reviewsDelay: DispatchTimeInterval? = nil, seen: @escaping @Sendable (HTTPRequest) -> Void = { _ in }) {
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
    }

    public func start() throws {
        try catalog.start()
        try reviews.start()
    }

    public var catalogURL: String { "http://" + catalog.localAddress }
    public var reviewsURL: String { "http://" + reviews.localAddress }

    public func shutdown() {
        catalog.shutdown(drainTimeout: .milliseconds(100))
        reviews.shutdown(drainTimeout: .milliseconds(100))
    }
}
