import Synchronization

/// Upstream call metrics, rendered at `/metrics`: calls by upstream and outcome (`ok`, `status_503`,
/// `upstream_timeout`, `upstream_unavailable`), their total duration, and retries.
public final class UpstreamMetrics: Sendable {
    private let calls = LabeledCounter(
        "flow_bff_upstream_requests_total", help: "Upstream call attempts, by upstream and outcome.",
        labels: ["upstream", "outcome"])
    private let retries = LabeledCounter(
        "flow_bff_upstream_retries_total", help: "Retries of idempotent upstream calls.", labels: ["upstream"])
    private let seconds = Mutex<[String: Double]>([:])

    public init() {}

    func record(_ upstream: String, outcome: String, seconds: Double) {
        calls.increment([upstream, outcome])
        self.seconds.withLock { $0[upstream, default: 0] += seconds }
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
        let seconds = seconds.withLock { $0 }
        return [
            calls.family,
            MetricFamily(
                "flow_bff_upstream_duration_seconds_sum", .counter, help: "Time spent in upstream attempts.",
                labels: ["upstream"],
                samples: seconds.keys.sorted().map { .init(labels: [$0], value: .real(seconds[$0]!)) }),
            retries.family,
        ]
    }

    /// The families in the Prometheus text format (empty before the first call).
    public func render() -> String { MetricsRegistry.render(families) }
}
