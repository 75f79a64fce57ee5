import Synchronization

/// Upstream call metrics, rendered at `/metrics`: calls by upstream and outcome (`ok`, `status_503`,
/// `upstream_timeout`, `upstream_unavailable`), a latency histogram per upstream and outcome, and retries.
public final class UpstreamMetrics: Sendable {
    /// Upper bounds of the latency histogram, in seconds: upstream calls take milliseconds to seconds.
    static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private let calls = LabeledCounter(
        "flow_bff_upstream_requests_total", help: "Upstream call attempts, by upstream and outcome.",
        labels: ["upstream", "outcome"])
    private let retries = LabeledCounter(
        "flow_bff_upstream_retries_total", help: "Retries of idempotent upstream calls.", labels: ["upstream"])
    /// `[upstream, outcome]` → per-bucket counts (not cumulative), sum and count.
    private let durations = Mutex<[[String]: (counts: [UInt64], sum: Double, count: UInt64)]>([:])

    public init() {}

    func record(_ upstream: String, outcome: String, seconds: Double) {
        calls.increment([upstream, outcome])
        var index = 0
        while index < Self.buckets.count && seconds > Self.buckets[index] { index += 1 }
        durations.withLock { durations in
            var entry = durations[[upstream, outcome]] ?? ([UInt64](repeating: 0, count: Self.buckets.count), 0, 0)
            if index < entry.counts.count { entry.counts[index] += 1 }
            entry.sum += seconds
            entry.count += 1
            durations[[upstream, outcome]] = entry
        }
    }

    func retried(_ upstream: String) {
        retries.increment([upstream])
    }

    /// Calls to `upstream` with `outcome` so far.
    public func calls(_ upstream: String, outcome: String) -> UInt64 {
        calls.value([upstream, outcome])
    }

    /// The families, none before the first call.
    var families: [MetricFamily] {
        guard !calls.isEmpty else { return [] }
        let durations = durations.withLock { $0 }
        let samples = durations.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { labels in
            let entry = durations[labels]!
            var cumulative: UInt64 = 0
            let buckets = Self.buckets.enumerated().map { index, bound in
                cumulative += entry.counts[index]
                return (bound: bound, count: cumulative)
            }
            return MetricFamily.Sample(
                labels: labels, value: .histogram(buckets: buckets, sum: entry.sum, count: entry.count))
        }
        return [
            calls.family,
            MetricFamily(
                "flow_bff_upstream_request_duration_seconds", .histogram,
                help: "Time of upstream call attempts, by upstream and outcome.", labels: ["upstream", "outcome"],
                samples: samples),
            retries.family,
        ]
    }

    /// The families in the Prometheus text format (empty before the first call).
    public func render() -> String { MetricsRegistry.render(families) }
}
