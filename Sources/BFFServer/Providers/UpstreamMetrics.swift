import Synchronization

/// Upstream call metrics, rendered at `/metrics`: calls by upstream and outcome (`ok`, `status_503`,
/// `upstream_timeout`, `upstream_unavailable`), their total duration, and retries.
public final class UpstreamMetrics: Sendable {
    private struct Key: Hashable {
        var upstream: String
        var outcome: String
    }

    private struct State {
        var calls: [Key: UInt64] = [:]
        var seconds: [String: Double] = [:]
        var retries: [String: UInt64] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    func record(_ upstream: String, outcome: String, seconds: Double) {
        state.withLock { state in
            state.calls[Key(upstream: upstream, outcome: outcome), default: 0] += 1
            state.seconds[upstream, default: 0] += seconds
        }
    }

    func retried(_ upstream: String) {
        state.withLock { $0.retries[upstream, default: 0] += 1 }
    }

    /// Calls to `upstream` with `outcome` so far.
    public func calls(_ upstream: String, outcome: String) -> UInt64 {
        state.withLock { $0.calls[Key(upstream: upstream, outcome: outcome)] ?? 0 }
    }

    /// Prometheus text lines (no trailing newline when empty).
    public func render() -> String {
        let state = state.withLock { $0 }
        guard !state.calls.isEmpty else { return "" }
        var lines: [String] = []
        lines.append("# HELP flow_bff_upstream_requests_total Upstream call attempts, by upstream and outcome.")
        lines.append("# TYPE flow_bff_upstream_requests_total counter")
        for key in state.calls.keys.sorted(by: { ($0.upstream, $0.outcome) < ($1.upstream, $1.outcome) }) {
            lines.append(
                "flow_bff_upstream_requests_total{upstream=\"\(key.upstream)\",outcome=\"\(key.outcome)\"} \(state.calls[key]!)"
            )
        }
        lines.append("# HELP flow_bff_upstream_duration_seconds_sum Time spent in upstream attempts.")
        lines.append("# TYPE flow_bff_upstream_duration_seconds_sum counter")
        for upstream in state.seconds.keys.sorted() {
            lines.append("flow_bff_upstream_duration_seconds_sum{upstream=\"\(upstream)\"} \(state.seconds[upstream]!)")
        }
        lines.append("# HELP flow_bff_upstream_retries_total Retries of idempotent upstream calls.")
        lines.append("# TYPE flow_bff_upstream_retries_total counter")
        for upstream in state.retries.keys.sorted() {
            lines.append("flow_bff_upstream_retries_total{upstream=\"\(upstream)\"} \(state.retries[upstream]!)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
