import Synchronization

/// Prometheus metrics for the server: requests by route and status, a latency histogram per route, in-flight
/// requests, open connections, and the catalog's version and load errors. Rendered at `/metrics`.
final class Metrics: Sendable {
    /// Upper bounds of the latency histogram, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct RouteStatus: Hashable {
        var route: String
        var status: Int
    }

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.buckets.count)
        var count: UInt64 = 0
        var sum = 0.0
    }

    private struct State {
        var requests: [RouteStatus: UInt64] = [:]
        var latency: [String: Histogram] = [:]
        var catalogVersion = ""
        var catalogErrors = 0
        var reloads: UInt64 = 0
    }

    private let state = Mutex(State())
    let inFlight = Atomic<Int>(0)

    func record(route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RouteStatus(route: route, status: status), default: 0] += 1
            var histogram = state.latency[route] ?? Histogram()
            if let index = Metrics.buckets.firstIndex(where: { seconds <= $0 }) { histogram.counts[index] += 1 }
            histogram.count += 1
            histogram.sum += seconds
            state.latency[route] = histogram
        }
    }

    func catalogLoaded(version: String, errors: Int) {
        state.withLock { state in
            state.catalogVersion = version
            state.catalogErrors = errors
            state.reloads += 1
        }
    }

    /// The Prometheus text exposition format (version 0.0.4).
    func render(openConnections: Int) -> String {
        let state = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP flow_bff_requests_total Requests answered, by route and status.")
        lines.append("# TYPE flow_bff_requests_total counter")
        for key in state.requests.keys.sorted(by: { ($0.route, $0.status) < ($1.route, $1.status) }) {
            lines.append(
                "flow_bff_requests_total{route=\"\(key.route)\",status=\"\(key.status)\"} \(state.requests[key]!)")
        }
        lines.append("# HELP flow_bff_request_duration_seconds Time from a complete request to its response.")
        lines.append("# TYPE flow_bff_request_duration_seconds histogram")
        for route in state.latency.keys.sorted() {
            let histogram = state.latency[route]!
            var cumulative: UInt64 = 0
            for (index, bound) in Metrics.buckets.enumerated() {
                cumulative += histogram.counts[index]
                lines.append(
                    "flow_bff_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(cumulative)")
            }
            lines.append("flow_bff_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.count)")
            lines.append("flow_bff_request_duration_seconds_sum{route=\"\(route)\"} \(histogram.sum)")
            lines.append("flow_bff_request_duration_seconds_count{route=\"\(route)\"} \(histogram.count)")
        }
        lines.append("# HELP flow_bff_requests_in_flight Requests being handled now.")
        lines.append("# TYPE flow_bff_requests_in_flight gauge")
        lines.append("flow_bff_requests_in_flight \(inFlight.load(ordering: .relaxed))")
        lines.append("# HELP flow_bff_open_connections Open client connections.")
        lines.append("# TYPE flow_bff_open_connections gauge")
        lines.append("flow_bff_open_connections \(openConnections)")
        lines.append("# HELP flow_bff_catalog_info The catalog version being served.")
        lines.append("# TYPE flow_bff_catalog_info gauge")
        lines.append("flow_bff_catalog_info{version=\"\(state.catalogVersion)\"} 1")
        lines.append("# HELP flow_bff_catalog_load_errors Error diagnostics in the last catalog load.")
        lines.append("# TYPE flow_bff_catalog_load_errors gauge")
        lines.append("flow_bff_catalog_load_errors \(state.catalogErrors)")
        lines.append("# HELP flow_bff_catalog_loads_total Catalog loads (start and reloads).")
        lines.append("# TYPE flow_bff_catalog_loads_total counter")
        lines.append("flow_bff_catalog_loads_total \(state.reloads)")
        return lines.joined(separator: "\n") + "\n"
    }
}
