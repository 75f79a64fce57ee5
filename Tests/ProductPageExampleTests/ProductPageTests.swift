import BFFServer
import BFFTesting
import ContractVerifier
import Dispatch
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import ProductPageExample
import Synchronization
import Testing

/// The example provider page (and its "Add to cart" action) against tiny upstream JSON servers on loopback:
/// healthy, dead (closed port) and slow (answers after the timeout) reviews.
@Suite(.serialized) struct ProductPageTests {
    static let target = "/v1/pages/product-live?productID=p-2210"

    /// Starts the demo upstreams and flow-bff with the provider; `reviewsURL` overrides the reviews service.
    func withProductPage(
        reviewsDelay: DispatchTimeInterval? = nil, reviewsURL: String? = nil,
        upstreamTimeout: Duration = .seconds(2), pageTimeout: Duration = .seconds(30),
        log: MemoryLogSink = MemoryLogSink(),
        _ body: (TestServer, HTTPTestClient, SeenRequestIDs) async throws -> Void
    ) async throws {
        let seenRequestIDs = SeenRequestIDs()
        let upstreams = DemoUpstreams(reviewsDelay: reviewsDelay) { request in
            if let id = request.headers["X-Request-ID"] { seenRequestIDs.ids.withLock { $0.append(id) } }
        }
        try upstreams.start()
        defer { upstreams.shutdown() }
        try await withTestServer(log: log) { server in
            let application = server.service.application
            // Upstream calls on the same kind of loop as the server (scripts/test runs the suite on both).
            let client = try HTTPClient(configuration: .init(eventLoop: server.service.server.configuration.eventLoop))
            defer { client.shutdown() }
            ProductPageProvider(
                catalogURL: upstreams.catalogURL, reviewsURL: reviewsURL ?? upstreams.reviewsURL,
                upstreamTimeout: upstreamTimeout, metrics: application.providers.upstreamMetrics, client: client
            ).register(on: application, timeout: pageTimeout)
            CartActions(
                cartURL: upstreams.cartURL, upstreamTimeout: upstreamTimeout,
                metrics: application.providers.upstreamMetrics, client: client
            ).register(on: application, timeout: pageTimeout)
            try await body(server, HTTPTestClient(port: server.port), seenRequestIDs)
        }
    }

    /// The access log says how long the composed page waited for its upstreams, and the caller's trace id.
    @Test func theAccessLogNamesUpstreamTimeAndTheTrace() async throws {
        let log = MemoryLogSink()
        // The reviews service answers after 150 ms: the page's upstream time is at least that.
        try await withProductPage(reviewsDelay: .milliseconds(150), log: log) { _, http, _ in
            let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            let response = try await http.get(
                Self.target, headers: [("X-Request-ID", "composed"), ("traceparent", traceparent)])
            #expect(response.status == 200)
            _ = try await http.get("/v1/pages/home", headers: [("X-Request-ID", "static")])
            func line(_ id: String) throws -> JSONValue {
                let text = try #require(
                    log.lines.first { $0.contains(#""requestID":"\#(id)""#) && $0.contains("route") })
                return try PageDecoder().parse(Array(text.utf8))
            }
            let composed = try line("composed")
            let upstreamMs = try #require(composed["upstreamMs"]?.numberValue)
            #expect(upstreamMs >= 150, "both upstream calls are summed: \(upstreamMs) ms")
            #expect(upstreamMs <= (composed["durationMs"]?.numberValue ?? 0) * 2 + 1)
            #expect(composed["traceID"] == "4bf92f3577b34da6a3ce929d0e0e4736", "tracing off: the caller's trace")
            #expect(composed["spanID"] == nil)
            #expect(composed["page"] == "product-live")
            #expect(try line("static")["upstreamMs"] == nil, "a page from the catalog waits for no upstream")
        }
    }

    /// Loads the page, paginates to the end, and returns the whole document and the first body.
    func crawl(_ http: HTTPTestClient, headers: [(String, String)] = []) async throws -> (
        PageModel, HTTPTestClient.Response
    ) {
        let first = try await http.get(Self.target, headers: headers)
        #expect(first.status == 200, "\(first.text)")
        var page = try PageDecoder().decodePage(first.body).value
        var requests = 0
        while let postback = page.pagination?.postback, page.hasMore, requests < 20 {
            requests += 1
            let next = try await http.get("/v1/pages/product-live/next?postback=\(postback)")
            #expect(next.status == 200, "\(next.text)")
            var diagnostics: [Diagnostic] = []
            page = page.appending(try PageDecoder().decodeNextPage(next.body).value, diagnostics: &diagnostics)
            #expect(diagnostics.isEmpty)
        }
        #expect(requests == 1, "3 sections at 2 per chunk")
        return (page, first)
    }

    @Test func healthyUpstreamsComposeTheWholePage() async throws {
        try await withProductPage { server, http, seen in
            let (page, first) = try await crawl(http, headers: [("X-Request-ID", "req-42")])
            #expect(page.sections.map(\.id) == ["product.summary", "product.reviews", "product.delivery"])
            #expect(page.sections[1].widgets.first?.id == "reviews.rating")
            #expect(first.header("X-Request-ID") == "req-42")
            // Both upstreams saw the request id (at least once each; a retried call on a loaded machine repeats it).
            #expect(seen.ids.withLock { $0 }.filter { $0 == "req-42" }.count >= 2, "both upstreams saw the request id")
            #expect(Degradation.list(inEnvelope: first.body).isEmpty)
            let etag = try #require(first.header("ETag"))
            #expect(try await http.get(Self.target, headers: [("If-None-Match", etag)]).status == 304)
            let metrics = try await http.get("/metrics").text
            #expect(metrics.contains(#"flow_bff_upstream_requests_total{upstream="reviews",outcome="ok"}"#))
            #expect(metrics.contains(#"flow_bff_provider_calls_total{page="product-live",outcome="ok"}"#))
            #expect(metrics.contains(#"flow_bff_requests_total{route="page",status="200"}"#))
        }
    }

    @Test func aDeadReviewsUpstreamDegradesOneSection() async throws {
        // A port where connections are refused for the whole test (a port bound and closed again could be
        // handed to a parallel test's server meanwhile).
        let refusing = try RefusingPort()
        let deadURL = "http://127.0.0.1:\(refusing.port)"
        try await withProductPage(reviewsURL: deadURL) { _, http, _ in
            let (page, first) = try await crawl(http)
            #expect(page.sections[1].widgets.map(\.id) == ["reviews.unavailable"])
            let degradations = Degradation.list(inEnvelope: first.body)
            #expect(degradations.count == 1)
            #expect(degradations.first?.code == "upstream_fallback")
            #expect(degradations.first?.sectionID == "product.reviews")
            #expect(degradations.first?.reason.hasPrefix("reviews:") == true)
        }
        withExtendedLifetime(refusing) {}
    }

    /// Reviews answer after 12 s, the upstream timeout is 2 s (the healthy catalog answers within it, also on a
    /// loaded one-core machine) and the page deadline 30 s. An event check, not a stopwatch (the provider runs on the
    /// concurrency pool, so a busy pool delays the whole page): the page comes back 200 with the reviews section
    /// degraded by the upstream timeout. Had it waited for the slow answer, reviews would be there, undegraded.
    @Test func aSlowReviewsUpstreamDegradesWithinTheTimeout() async throws {
        try await withProductPage(reviewsDelay: .seconds(12), upstreamTimeout: .seconds(2), pageTimeout: .seconds(30)) {
            _, http, _ in
            let first = try await http.get(Self.target)
            #expect(first.status == 200)
            let degradations = Degradation.list(inEnvelope: first.body)
            #expect(degradations.map(\.code) == ["upstream_fallback"])
            #expect(degradations.first?.reason.contains("no answer within 2.0 s") == true)
        }
    }

    @Test func requiredUpstreamFailuresAndBadParametersAreProblems() async throws {
        try await withProductPage { _, http, _ in
            let unknown = try await http.get("/v1/pages/product-live?productID=p-9999")
            #expect(unknown.status == 404 && unknown.text.contains("page_not_found"))
            let missing = try await http.get("/v1/pages/product-live")
            #expect(missing.status == 400 && missing.header("Content-Type") == "application/problem+json")
        }
    }

    /// The contract test itself (PageStore over its HTTP loader) passes on the provider page, healthy and with a
    /// dead reviews upstream (the degraded section is still a valid page).
    @Test func theProviderPagePassesVerify() async throws {
        // A port where connections are refused for the whole test (a port bound and closed again could be
        // handed to a parallel test's server meanwhile).
        let refusing = try RefusingPort()
        let deadURL = "http://127.0.0.1:\(refusing.port)"
        for reviewsURL in [nil, deadURL] {
            try await withProductPage(reviewsURL: reviewsURL) { server, _, _ in
                let configuration = VerifierConfiguration(
                    baseURL: URL(string: server.baseURL)!,
                    entryPages: [PageTarget(pageID: "product-live", parameters: ["productID": "p-2210"])],
                    maximumChunks: 20, maximumPageLoads: 5, timeout: 30)
                let report = try await ContractVerifier(configuration: configuration).run()
                #expect(report.passed, "\(report.summary)")
                #expect(report.coverage.cursors >= 1)
            }
        }
        withExtendedLifetime(refusing) {}
    }

    @Test func everyCapabilityProfileSeesOnlyWhatItRenders() async throws {
        let legacy = try CapabilityProfile(
            name: "legacy", header: "platform=android; version=2.4.0; widgets=text,list_row,button")
        try await withProductPage { _, http, _ in
            let (page, first) = try await crawl(http, headers: [("X-Flow-Client", legacy.header)])
            #expect(CapabilityCheck.problems(in: page, for: legacy.capabilities).isEmpty)
            let codes = Degradation.list(inEnvelope: first.body).map(\.code)
            #expect(codes.contains("widget_dropped"), "image and key_value are dropped for this client")
        }
    }
}

/// Request ids the upstreams received.
final class SeenRequestIDs: Sendable {
    let ids = Mutex<[String]>([])
}
