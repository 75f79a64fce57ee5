import Synchronization

/// Prometheus metrics for the server: requests by route and status, a latency histogram per route and one per
/// route and page, problem answers by route and code, in-flight requests, open connections, and the catalog's
/// version and load errors. Rendered at `/metrics`.
final class Metrics: Sendable {
    /// Upper bounds of the latency histogram, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// One route's counters: requests by status, the latency histogram, one histogram per page served (the
    /// response's ``HTTPResponse/subject``: catalog page ids only, so the label set is bounded) and problem answers
    /// by code.
    private struct RouteCounters {
        /// Requests by status: a short list searched in order (a route answers a handful of statuses), so
        /// recording hashes nothing.
        var statuses: [(status: Int, count: UInt64)] = []
        var histogram = Histogram()
        var pages: [(page: String, histogram: Histogram)] = []
        var codes: [(code: String, count: UInt64)] = []

        mutating func record(status: Int, seconds: Double, page: String?, code: String?) {
            add(1, status: status)
            histogram.record(seconds)
            if let page {
                if let index = pages.firstIndex(where: { $0.page == page }) {
                    pages[index].histogram.record(seconds)
                } else {
                    var histogram = Histogram()
                    histogram.record(seconds)
                    pages.append((page, histogram))
                }
            }
            if let code { add(1, code: code) }
        }

        mutating func merge(_ other: RouteCounters) {
            for (status, count) in other.statuses { add(count, status: status) }
            histogram.merge(other.histogram)
            for (page, histogram) in other.pages {
                if let index = pages.firstIndex(where: { $0.page == page }) {
                    pages[index].histogram.merge(histogram)
                } else {
                    pages.append((page, histogram))
                }
            }
            for (code, count) in other.codes { add(count, code: code) }
        }

        private mutating func add(_ count: UInt64, code: String) {
            if let index = codes.firstIndex(where: { $0.code == code }) {
                codes[index].count += count
            } else {
                codes.append((code, count))
            }
        }

        private mutating func add(_ count: UInt64, status: Int) {
            if let index = statuses.firstIndex(where: { $0.status == status }) {
                statuses[index].count += count
            } else {
                statuses.append((status, count))
            }
        }
    }

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.buckets.count)
        var count: UInt64 = 0
        var sum = 0.0

        mutating func record(_ seconds: Double) {
            var index = 0
            while index < Metrics.buckets.count && seconds > Metrics.buckets[index] { index += 1 }
            if index < counts.count { counts[index] += 1 }
            count += 1
            sum += seconds
        }

        mutating func merge(_ other: Histogram) {
            for index in counts.indices { counts[index] += other.counts[index] }
            count += other.count
            sum += other.sum
        }

        /// The sample value: cumulative counts per bound, the sum and the count.
        var value: MetricFamily.Value {
            var cumulative: UInt64 = 0
            let buckets = Metrics.buckets.enumerated().map { index, bound in
                cumulative += counts[index]
                return (bound: bound, count: cumulative)
            }
            return .histogram(buckets: buckets, sum: sum, count: count)
        }
    }

    /// One event loop's request counters. Only that loop's thread records into it, so its lock is uncontended
    /// (a scrape takes it briefly); the shards are merged when `/metrics` is rendered.
    /// Routes are a short list searched by name (route names are short strings, compared inline), not a
    /// dictionary: recording hashes nothing.
    private final class Shard: Sendable {
        let routes = Mutex<[(route: String, counters: RouteCounters)]>([])
    }

    private struct State {
        var catalogVersion = ""
        var catalogErrors = 0
        var reloads: UInt64 = 0
    }

    /// Shards by event-loop index (modulo their count; requests recorded off a loop use shard 0).
    private let shards: [Shard] = (0..<Metrics.shardCount).map { _ in Shard() }
    private static let shardCount = 64
    private let state = Mutex(State())
    /// Requests being handled now.
    let inFlight = Atomic<Int>(0)

    /// Counts one answered request of `route` with `status`, taking `seconds`, on event loop `loop`; `page` is the
    /// catalog page it served and `code` its problem code, when it has them.
    func record(route: String, status: Int, seconds: Double, loop: Int = 0, page: String? = nil, code: String? = nil) {
        shards[loop & (Metrics.shardCount - 1)].routes.withLock { routes in
            if let index = routes.firstIndex(where: { $0.route == route }) {
                routes[index].counters.record(status: status, seconds: seconds, page: page, code: code)
            } else {
                var counters = RouteCounters()
                counters.record(status: status, seconds: seconds, page: page, code: code)
                routes.append((route, counters))
            }
        }
    }

    func catalogLoaded(version: String, errors: Int) {
        state.withLock { state in
            state.catalogVersion = version
            state.catalogErrors = errors
            state.reloads += 1
        }
    }

    /// The request, connection and catalog families, for the ``MetricsRegistry``.
    func families(openConnections: Int) -> [MetricFamily] {
        let state = state.withLock { $0 }
        var routes: [String: RouteCounters] = [:]
        for shard in shards {
            for (route, counters) in shard.routes.withLock({ $0 }) {
                routes[route, default: RouteCounters()].merge(counters)
            }
        }
        let names = routes.keys.sorted()
        var requests: [MetricFamily.Sample] = []
        var durations: [MetricFamily.Sample] = []
        var pageDurations: [MetricFamily.Sample] = []
        var problems: [MetricFamily.Sample] = []
        for route in names {
            let counters = routes[route]!
            for (status, count) in counters.statuses.sorted(by: { $0.status < $1.status }) {
                requests.append(.init(labels: [route, String(status)], value: .count(count)))
            }
            durations.append(.init(labels: [route], value: counters.histogram.value))
            for (page, histogram) in counters.pages.sorted(by: { $0.page < $1.page }) {
                pageDurations.append(.init(labels: [route, page], value: histogram.value))
            }
            for (code, count) in counters.codes.sorted(by: { $0.code < $1.code }) {
                problems.append(.init(labels: [route, code], value: .count(count)))
            }
        }
        return [
            MetricFamily(
                "flow_bff_requests_total", .counter, help: "Requests answered, by route and status.",
                labels: ["route", "status"], samples: requests),
            MetricFamily(
                "flow_bff_request_duration_seconds", .histogram, help: "Time from a complete request to its response.",
                labels: ["route"], samples: durations),
            MetricFamily(
                "flow_bff_page_request_duration_seconds", .histogram,
                help: "Time from a complete request to its response, by route and catalog page.",
                labels: ["route", "page"], samples: pageDurations),
            MetricFamily(
                "flow_bff_problems_total", .counter,
                help: "Problem answers (application/problem+json), by route and code.",
                labels: ["route", "code"], samples: problems),
            MetricFamily(
                "flow_bff_requests_in_flight", .gauge, help: "Requests being handled now.",
                samples: [.init(labels: [], value: .count(UInt64(max(0, inFlight.load(ordering: .relaxed)))))]),
            MetricFamily(
                "flow_bff_open_connections", .gauge, help: "Open client connections.",
                samples: [.init(labels: [], value: .count(UInt64(max(0, openConnections))))]),
            MetricFamily(
                "flow_bff_catalog_info", .gauge, help: "The catalog version being served.", labels: ["version"],
                samples: [.init(labels: [state.catalogVersion], value: .count(1))]),
            MetricFamily(
                "flow_bff_catalog_load_errors", .gauge, help: "Error diagnostics in the last catalog load.",
                samples: [.init(labels: [], value: .count(UInt64(max(0, state.catalogErrors))))]),
            MetricFamily(
                "flow_bff_catalog_loads_total", .counter, help: "Catalog loads (start and reloads).",
                samples: [.init(labels: [], value: .count(state.reloads))]),
        ]
    }
}
