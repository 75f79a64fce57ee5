import BFFServer
import BFFTesting
import HTTPCore
import HTTPTesting
import PageModel
import ProductPageExample
import Synchronization
import Testing

/// Tracing end to end on loopback (docs/operations.md, "Tracing"): the example's provider page (catalog and
/// reviews upstreams) and cart action with `tracing` on, exporting OTLP/HTTP JSON to a receiver in the test that
/// collects the spans. (`scripts/tracing-test` checks the same trace with the official `opentelemetry-proto`
/// decoder, over protobuf and JSON.)
@Suite(.serialized) struct TracingTests {
    static let incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"

    /// One exported span, read from the OTLP JSON.
    struct ExportedSpan: Sendable {
        var traceID: String
        var spanID: String
        var parentSpanID: String?
        var name: String
        var kind: Int
        var start: UInt64
        var end: UInt64
        var attributes: [String: String]
        var statusCode: Int
        var traceState: String?

        init(_ json: JSONValue) throws {
            traceID = try #require(json["traceId"]?.stringValue)
            spanID = try #require(json["spanId"]?.stringValue)
            parentSpanID = json["parentSpanId"]?.stringValue
            name = try #require(json["name"]?.stringValue)
            kind = try #require(json["kind"]?.intValue)
            start = try #require(json["startTimeUnixNano"]?.stringValue.flatMap { UInt64($0) })
            end = try #require(json["endTimeUnixNano"]?.stringValue.flatMap { UInt64($0) })
            var attributes: [String: String] = [:]
            for attribute in json["attributes"]?.arrayValue ?? [] {
                let value = attribute["value"]
                attributes[attribute["key"]?.stringValue ?? ""] =
                    value?["stringValue"]?.stringValue ?? value?["intValue"]?.stringValue
            }
            self.attributes = attributes
            statusCode = json["status"]?["code"]?.intValue ?? 0
            traceState = json["traceState"]?.stringValue
        }
    }

    /// An OTLP/HTTP JSON receiver: keeps every span and the resource of each export, signals once per span.
    final class Receiver: Sendable {
        final class Recorded: Sendable {
            let spans = Mutex<[ExportedSpan]>([])
            let resources = Mutex<[JSONValue]>([])
            let contentTypes = Mutex<[String]>([])
            let received = TestSignal()
        }

        let server: HTTPServer
        let recorded = Recorded()

        init() {
            let recorded = recorded
            server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
                recorded.contentTypes.withLock { $0.append(request.headers["Content-Type"] ?? "") }
                guard request.method == .post, request.path == "/v1/traces",
                    let json = try? JSONParser().parse(request.body)
                else { return .json(Array("{}".utf8), status: .badRequest) }
                var batch: [ExportedSpan] = []
                for resourceSpans in json["resourceSpans"]?.arrayValue ?? [] {
                    recorded.resources.withLock { $0.append(resourceSpans["resource"] ?? .null) }
                    for scopeSpans in resourceSpans["scopeSpans"]?.arrayValue ?? [] {
                        for span in scopeSpans["spans"]?.arrayValue ?? [] {
                            if let span = try? ExportedSpan(span) { batch.append(span) }
                        }
                    }
                }
                recorded.spans.withLock { $0 += batch }
                for _ in batch { recorded.received.signal() }
                return .json(Array("{}".utf8))
            }
        }

        var endpoint: String { "http://" + server.localAddress + "/v1/traces" }
        var received: TestSignal { recorded.received }
        var spans: [ExportedSpan] { recorded.spans.withLock { $0 } }
        var resources: [JSONValue] { recorded.resources.withLock { $0 } }
        var contentTypes: [String] { recorded.contentTypes.withLock { $0 } }
    }

    /// The `traceparent` each upstream request carried, by the first path segment (`products`, `reviews`, `cart`).
    final class Seen: Sendable {
        let values = Mutex<[String: [String]]>([:])
        var all: [String: [String]] { values.withLock { $0 } }
    }

    /// The demo upstreams recording the `traceparent` each request carried, flow-bff with tracing on (JSON, short
    /// schedule delay) and the example's page and action registered.
    func withTracing(
        sampler: TraceSampler.Kind = .parentBasedAlwaysOn, enabled: Bool = true,
        _ body: (HTTPTestClient, Receiver, Seen, TestServer) async throws -> Void
    ) async throws {
        let seen = Seen()
        let upstreams = DemoUpstreams { request in
            let path = String(request.path.split(separator: "/").first ?? "")
            seen.values.withLock { $0[path, default: []].append(request.headers["traceparent"] ?? "-") }
        }
        try upstreams.start()
        defer { upstreams.shutdown() }
        let receiver = Receiver()
        try receiver.server.start()
        defer { receiver.server.shutdown(drainTimeout: .milliseconds(100)) }
        var configuration = BFFConfiguration()
        configuration.tracing.enabled = enabled
        configuration.tracing.endpoint = receiver.endpoint
        configuration.tracing.exportProtocol = .httpJSON
        configuration.tracing.scheduleDelaySeconds = 0.05
        configuration.tracing.sampler = sampler
        configuration.tracing.serviceName = "bff-test"
        try await withTestServer(configuration: configuration) { server in
            let application = server.service.application
            let client = try HTTPClient(configuration: .init(eventLoop: server.service.server.configuration.eventLoop))
            defer { client.shutdown() }
            ProductPageProvider(
                catalogURL: upstreams.catalogURL, reviewsURL: upstreams.reviewsURL, upstreamTimeout: .seconds(10),
                metrics: application.providers.upstreamMetrics, client: client
            ).register(on: application, timeout: .seconds(30))
            CartActions(
                cartURL: upstreams.cartURL, upstreamTimeout: .seconds(10),
                metrics: application.providers.upstreamMetrics, client: client
            ).register(on: application, timeout: .seconds(30))
            try await body(HTTPTestClient(port: server.port), receiver, seen, server)
        }
    }

    @Test func aProviderPageIsOneTraceWithTheServerSpanTheProviderAndTwoUpstreamCalls() async throws {
        try await withTracing { http, receiver, seen, server in
            let page = try await http.get(
                "/v1/pages/product-live?productID=p-2210",
                headers: [("traceparent", Self.incoming), ("tracestate", "vendor=1"), ("User-Agent", "Larder/5.2")])
            #expect(page.status == 200, "\(page.text)")
            try await receiver.received.wait(for: 4)
            let spans = receiver.spans
            #expect(spans.count == 4)
            #expect(Set(spans.map(\.traceID)) == [Self.traceID], "one trace: the incoming one")
            #expect(spans.allSatisfy { $0.traceState == "vendor=1" }, "tracestate passed on verbatim")

            let serverSpan = try #require(spans.first { $0.kind == 2 })
            #expect(serverSpan.parentSpanID == "00f067aa0ba902b7", "the caller's span is the server span's parent")
            #expect(serverSpan.name == "GET /v1/pages/{pageID}")
            #expect(serverSpan.attributes["http.route"] == "/v1/pages/{pageID}")
            #expect(serverSpan.attributes["http.request.method"] == "GET")
            #expect(serverSpan.attributes["url.path"] == "/v1/pages/product-live")
            #expect(serverSpan.attributes["http.response.status_code"] == "200")
            #expect(serverSpan.attributes["server.address"] == "127.0.0.1")
            #expect(serverSpan.attributes["server.port"] == String(server.port))
            #expect(serverSpan.attributes["user_agent.original"] == "Larder/5.2")
            #expect(serverSpan.attributes["network.protocol.version"] == "1.1")
            #expect(serverSpan.statusCode == 0)

            let provider = try #require(spans.first { $0.kind == 1 })
            #expect(provider.name == "provider product-live")
            #expect(provider.parentSpanID == serverSpan.spanID)
            #expect(provider.attributes["flow_bff.page"] == "product-live")

            let clients = spans.filter { $0.kind == 3 }
            #expect(clients.count == 2)
            #expect(Set(clients.compactMap { $0.attributes["flow_bff.upstream"] }) == ["catalog", "reviews"])
            for client in clients {
                #expect(client.name == "GET")
                #expect(client.parentSpanID == provider.spanID, "upstream calls are children of the provider span")
                #expect(client.attributes["http.request.method"] == "GET")
                #expect(client.attributes["http.response.status_code"] == "200")
                #expect(client.attributes["server.address"] == "127.0.0.1")
                #expect(client.attributes["url.full"]?.hasPrefix("http://127.0.0.1:") == true)
                // Nested in time: the server span holds the provider span, which holds each call.
                #expect(provider.start <= client.start && client.end <= provider.end)
            }
            #expect(serverSpan.start <= provider.start && provider.end <= serverSpan.end)

            // Each upstream got the trace with its client span as the parent.
            let received = seen.all
            for (path, upstream) in [("products", "catalog"), ("reviews", "reviews")] {
                let span = try #require(clients.first { $0.attributes["flow_bff.upstream"] == upstream })
                #expect(received[path] == ["00-\(Self.traceID)-\(span.spanID)-01"], "\(upstream)")
            }
            let resource = try #require(receiver.resources.first)
            #expect(
                resource["attributes"]?[0]?["value"]?["stringValue"]?.stringValue == "bff-test",
                "service.name")
            #expect(receiver.contentTypes.allSatisfy { $0 == "application/json" })
            let metrics = try await http.get("/metrics").text
            #expect(metrics.contains(#"flow_bff_trace_spans_dropped_total{reason="queue_full"} 0"#))
            #expect(metrics.contains("flow_bff_trace_spans_exported_total"))
        }
    }

    @Test func anActionHandlerRunIsASpanWithItsUpstreamCall() async throws {
        try await withTracing { http, receiver, seen, _ in
            // The page first (the action is checked against it): four spans of a new trace.
            #expect(try await http.get("/v1/pages/product-live?productID=p-2210").status == 200)
            try await receiver.received.wait(for: 4)
            let body =
                #"{"pageID": "product-live", "widgetID": "product.addToCart", "event": "tap", "payload": {"productID": "p-2210"}}"#
            let answer = try await http.post("/v1/actions/live.cart.add", json: body)
            #expect(answer.status == 200, "\(answer.text)")
            try await receiver.received.wait(for: 7)
            let spans = receiver.spans
            let handler = try #require(spans.first { $0.name == "action live.cart.add" })
            let serverSpan = try #require(spans.first { $0.spanID == handler.parentSpanID })
            #expect(serverSpan.name == "POST /v1/actions/{name}")
            #expect(serverSpan.parentSpanID == nil, "no traceparent came in: a new trace")
            let cart = try #require(spans.first { $0.parentSpanID == handler.spanID })
            #expect(cart.name == "POST")
            #expect(cart.attributes["flow_bff.upstream"] == "cart")
            #expect(Set([serverSpan.traceID, handler.traceID, cart.traceID]).count == 1)
            #expect(seen.all["cart"] == ["00-\(cart.traceID)-\(cart.spanID)-01"])
            // The page's trace is another one.
            #expect(spans.filter { $0.traceID == cart.traceID }.count == 3)
        }
    }

    @Test func anUnsampledCallerIsForwardedUnchangedAndNothingIsExported() async throws {
        try await withTracing { http, receiver, seen, server in
            let unsampled = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
            let page = try await http.get(
                "/v1/pages/product-live?productID=p-2210", headers: [("traceparent", unsampled)])
            #expect(page.status == 200)
            #expect(seen.all == ["products": [unsampled], "reviews": [unsampled]])
            // A sampled request afterwards is the only one exported.
            #expect(try await http.get("/healthz", headers: [("traceparent", Self.incoming)]).status == 200)
            try await receiver.received.wait(for: 1)
            await server.service.application.spanExporter?.shutdown()
            #expect(receiver.spans.map(\.name) == ["GET /healthz"])
        }
    }

    @Test func withTracingOffTheIncomingContextIsForwardedUnchanged() async throws {
        try await withTracing(enabled: false) { http, receiver, seen, server in
            #expect(server.service.application.spanExporter == nil)
            let page = try await http.get(
                "/v1/pages/product-live?productID=p-2210",
                headers: [("traceparent", Self.incoming), ("tracestate", "vendor=1")])
            #expect(page.status == 200)
            #expect(seen.all == ["products": [Self.incoming], "reviews": [Self.incoming]])
            #expect(receiver.received.count == 0)
            #expect(!(try await http.get("/metrics").text.contains("flow_bff_trace_")))
        }
    }
}
