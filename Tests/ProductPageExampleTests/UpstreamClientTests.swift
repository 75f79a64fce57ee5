import Dispatch
import Foundation
import HTTPCore
import PageModel
import Synchronization
import Testing

@testable import BFFServer

/// `UpstreamClient` against loopback servers: retries with backoff for idempotent calls, none for POST, and the
/// concurrency limit.
@Suite(.serialized) struct UpstreamClientTests {
    final class Counter: Sendable {
        let calls = Atomic<Int>(0)
        let inFlight = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
    }

    @Test func idempotentCallsRetryA503ButPostsDoNot() async throws {
        let counter = Counter()
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { _ in
            let call = counter.calls.add(1, ordering: .relaxed).newValue
            return call % 2 == 1 ? .text("busy", status: .serviceUnavailable) : .json(Array(#"{"ok":true}"#.utf8))
        }
        try server.start()
        defer { server.shutdown() }
        let metrics = UpstreamMetrics()
        let client = UpstreamClient(
            UpstreamConfiguration(
                name: "flaky", baseURL: "http://" + server.localAddress, retries: 2, backoff: .milliseconds(5)),
            metrics: metrics)
        let json = try await client.getJSON("/thing")
        #expect(json["ok"] == true)
        #expect(metrics.calls("flaky", outcome: "status_503") == 1)
        #expect(metrics.calls("flaky", outcome: "ok") == 1)
        await #expect(throws: UpstreamError.self) { try await client.send("POST", "/thing", body: []) }
        #expect(counter.calls.load(ordering: .relaxed) == 3, "the POST was sent once")
        #expect(metrics.render().contains(#"flow_bff_upstream_retries_total{upstream="flaky"} 1"#))
    }

    @Test func theConcurrencyLimitHoldsRequestsBack() async throws {
        let counter = Counter()
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { _ in
            let now = counter.inFlight.add(1, ordering: .relaxed).newValue
            var peak = counter.peak.load(ordering: .relaxed)
            while now > peak {
                let (exchanged, original) = counter.peak.compareExchange(
                    expected: peak, desired: now, ordering: .relaxed)
                if exchanged { break }
                peak = original
            }
            return .deferred { promise in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                    counter.inFlight.subtract(1, ordering: .relaxed)
                    promise.succeed(.json(Array("{}".utf8)))
                }
            }
        }
        try server.start()
        defer { server.shutdown() }
        let client = UpstreamClient(
            UpstreamConfiguration(
                name: "narrow", baseURL: "http://" + server.localAddress, maximumConcurrentRequests: 2))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await client.get("/x") } }
            try await group.waitForAll()
        }
        #expect(counter.peak.load(ordering: .relaxed) <= 2)
        #expect(counter.peak.load(ordering: .relaxed) >= 1)
    }
}
