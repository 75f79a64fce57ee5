import HTTPCore
import PageModel
import Synchronization

/// The operational routes — `/healthz`, `/readyz`, `/metrics` and the page index — and what they read.
struct OperationalRoutes: Sendable {
    typealias Answer = BFFApplication.Answer

    let served: ServedSnapshot
    /// The page index lists provider pages too.
    let providers: PageProviders
    /// Whether the page index lists each page's scenarios (mock mode).
    let listsScenarios: Bool
    let metricsRegistry: MetricsRegistry
    /// `logging.metrics`: `/metrics` answers 404 when off.
    let servesMetrics: Bool
    let ready: ReadySwitch

    static let healthy = HTTPResponse.json(Array(#"{"status":"ok"}"#.utf8), headers: ["Cache-Control": "no-store"])

    /// `GET /v1/pages`: the ids of the pages served (page files and providers), sorted, and in mock mode each
    /// page's scenarios — so a contract test (`flow-bff verify --all`) can crawl pages nothing links to.
    func pageIndex() -> HTTPResponse {
        let catalog = served.snapshot.catalog
        let ids = Set(catalog.pageIDs).union(providers.pageIDs).sorted()
        var index = JSONObject()
        index["pages"] = .array(ids.map { .string($0) })
        // Pages made per data item (`server.item`) answer only with their parameter: a sample of values to load
        // them with (`verify --all` crawls each), the first, middle and last item's.
        var parameters = JSONObject()
        for pageID in catalog.pageIDs {
            guard let samples = catalog.sampleParameters(of: pageID) else { continue }
            parameters[pageID] = .array(
                samples.map {
                    .object(JSONObject($0.sorted { $0.key < $1.key }.map { .init(key: $0, value: .string($1)) }))
                })
        }
        if !parameters.isEmpty { index["parameters"] = .object(parameters) }
        if listsScenarios {
            var scenarios = JSONObject()
            for (pageID, named) in catalog.scenarios.sorted(by: { $0.key < $1.key }) {
                scenarios[pageID] = .array(named.keys.sorted().map { .string($0) })
            }
            index["scenarios"] = .object(scenarios)
        }
        return .json(JSONWriter().write(.object(index)), headers: ["Cache-Control": "no-cache"])
    }

    /// `GET /readyz`: 200 with the catalog's size and version, 503 `not_ready` while starting or shutting down.
    func readiness() throws -> Answer {
        guard ready.isOn else { throw ProblemDetails.notReady }
        let catalog = served.snapshot.catalog
        let body = #"{"status":"ready","pages":\#(catalog.pages.count),"catalogVersion":"\#(catalog.version)"}"#
        return .now(.json(Array(body.utf8), headers: ["Cache-Control": "no-store"]))
    }

    /// `GET /metrics`: the Prometheus text format; 404 when `logging.metrics` is off.
    func metricsText() throws -> Answer {
        guard servesMetrics else { throw HTTPError(.notFound, code: ProblemCode.notFound.rawValue) }
        return .now(
            .bytes(
                Array(metricsRegistry.render().utf8),
                contentType: "text/plain; version=0.0.4; charset=utf-8",
                headers: ["Cache-Control": "no-store"]))
    }
}

/// Whether the server takes traffic (`/readyz`): on from the start, off while it drains for shutdown.
final class ReadySwitch: Sendable {
    private let value = Atomic<Bool>(true)

    var isOn: Bool { value.load(ordering: .relaxed) }

    func set(_ isOn: Bool) { value.store(isOn, ordering: .relaxed) }
}
