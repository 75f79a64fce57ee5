import BFFServer
import HTTPCore
import PageModel

/// The example page provider: `GET /v1/pages/product-live?productID=p-2210` composed from two upstream JSON
/// services. The catalog (`GET /products/{id}` → `{"title", "price", "imageURL"?, "description"?}`) is required:
/// without it there is no page (404 for an unknown product, 502/504 otherwise). Reviews
/// (`GET /reviews?productID=…` → `{"rating", "count", "items": [{"author", "text"}]}`) are optional: when they
/// fail the page is served with a fallback reviews section and an `upstream_fallback` degradation.
public struct ProductPageProvider: Sendable {
    public static let pageID = "product-live"
    public let catalog: UpstreamClient
    public let reviews: UpstreamClient

    /// - Parameters:
    ///   - upstreamTimeout: per-attempt timeout of both upstreams. Default 300 ms.
    ///   - metrics: the upstream metrics sink (`application.providers.upstreamMetrics`).
    ///   - client: the HTTP client both upstreams are called through (default the process's shared one).
    public init(
        catalogURL: String, reviewsURL: String, upstreamTimeout: Duration = .milliseconds(300),
        metrics: UpstreamMetrics = UpstreamMetrics(), client: HTTPClient = .shared
    ) {
        catalog = UpstreamClient(
            UpstreamConfiguration(name: "catalog", baseURL: catalogURL, timeout: upstreamTimeout, retries: 1),
            metrics: metrics, client: client)
        reviews = UpstreamClient(
            UpstreamConfiguration(name: "reviews", baseURL: reviewsURL, timeout: upstreamTimeout, retries: 0),
            metrics: metrics, client: client)
    }

    /// Registers the page on `application` (2 sections per chunk, provider timeout `timeout`, default 1 s).
    public func register(on application: BFFApplication, timeout: Duration = .seconds(1)) {
        application.providers.register(
            Self.pageID, options: PageProviderOptions(pageSize: 2, cacheControl: "no-cache", timeout: timeout)
        ) { context in try await page(for: context) }
    }

    /// The reviews section shown when the reviews service fails.
    public static let reviewsFallback = Section(
        id: "product.reviews", title: "Reviews",
        widgets: [.text(id: "reviews.unavailable", "Reviews are unavailable right now.", style: "caption")])

    public func page(for context: PageRequestContext) async throws -> ProvidedPage {
        guard let productID = context.parameters["productID"], !productID.isEmpty,
            productID.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0)
            })
        else { throw PageProviderError.invalidParameter("productID is a required lowercase id like p-2210") }
        let requestID = context.requestID
        let trace = context.traceContext
        let reviews = self.reviews
        async let reviewsOutcome = SectionOutcome.degradable("product.reviews", fallback: Self.reviewsFallback) {
            try Self.reviewsSection(
                try await reviews.getJSON(
                    "/reviews", query: ["productID": productID], requestID: requestID, traceContext: trace))
        }
        let product: JSONValue
        do {
            product = try await catalog.getJSON("/products/\(productID)", requestID: requestID, traceContext: trace)
        } catch {
            if error.status == 404 { throw PageProviderError.notFound("There is no product \"\(productID)\".") }
            throw PageProviderError.upstream(error)
        }
        guard let title = product["title"]?.stringValue, let price = product["price"]?.stringValue else {
            throw PageProviderError.upstream(
                UpstreamError(
                    upstream: "catalog", code: "upstream_invalid_json", message: "a product needs title and price"))
        }
        let outcome = await reviewsOutcome
        var header: [Widget] = [CartActions.emptyBadge]
        if let imageURL = product["imageURL"]?.stringValue {
            header.append(.image(id: "product.image", url: imageURL, alt: title, aspectRatio: 1))
        }
        var summary: [Widget] = [
            .text(id: "product.title", title, style: "title"), .text(id: "product.price", price, style: "price"),
        ]
        if let description = product["description"]?.stringValue {
            summary.append(.text(id: "product.description", description, style: "body"))
        }
        let delivery = Section(
            id: "product.delivery", title: "Delivery",
            widgets: [
                .listRow(
                    id: "delivery.standard", title: "Standard delivery", subtitle: "2–4 working days", trailing: "€4.90"
                ),
                .listRow(
                    id: "delivery.returns", title: "Free returns within 30 days", trailing: "›",
                    onTap: .deeplink(url: "larder://help/returns")),
            ])
        let sections = [Section(id: "product.summary", widgets: summary), outcome.section, delivery].compactMap { $0 }
        let page = PageModel(
            id: Self.pageID, title: title, header: header, sections: sections,
            footer: [
                .button(
                    id: "product.addToCart", title: "Add to cart",
                    onTap: .api(name: CartActions.add, payload: ["productID": .string(productID)])),
                .button(
                    id: "product.share", title: "Share", style: "secondary",
                    onTap: .deeplink(url: "larder://share/products/\(productID)")),
            ])
        return ProvidedPage(page, degradations: outcome.degradation.map { [$0] } ?? [])
    }

    static func reviewsSection(_ json: JSONValue) throws -> Section {
        guard let rating = json["rating"]?.numberValue, let count = json["count"]?.intValue else {
            throw UpstreamError(
                upstream: "reviews", code: "upstream_invalid_json", message: "rating and count required")
        }
        var widgets: [Widget] = [
            .keyValue(id: "reviews.rating", label: "Rating", value: "\(rating) ★ (\(count) reviews)")
        ]
        for (index, item) in (json["items"]?.arrayValue ?? []).prefix(5).enumerated() {
            guard let author = item["author"]?.stringValue, let text = item["text"]?.stringValue else { continue }
            widgets.append(.listRow(id: "reviews.\(index)", title: author, subtitle: text))
        }
        return Section(id: "product.reviews", title: "Reviews", widgets: widgets)
    }
}
