import Foundation
import PageModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server's page index, `GET /v1/pages` (optional in the contract): the page ids it serves and, in mock
/// mode, each page's scenarios. `verify --all` crawls every listed page; without it the summary warns about
/// listed pages the crawl did not reach.
public struct PageIndex: Sendable, Hashable {
    public var pages: [String]
    /// Page id → scenario names (mock mode; selected with `X-Flow-Scenario`).
    public var scenarios: [String: [String]]
    /// Page id → query parameters to load it with, for a page that answers only with them (a page per data item).
    public var parameters: [String: [[String: String]]]

    public init(
        pages: [String], scenarios: [String: [String]] = [:], parameters: [String: [[String: String]]] = [:]
    ) {
        self.pages = pages
        self.scenarios = scenarios
        self.parameters = parameters
    }

    /// What to crawl for each listed page: the page, or the page with each of its parameter samples.
    public var targets: [PageTarget] {
        pages.flatMap { id in
            parameters[id].map { $0.map { PageTarget(pageID: id, parameters: $0) } } ?? [PageTarget(pageID: id)]
        }
    }

    /// Reads `{"pages": ["…"], "scenarios"?: {"id": ["…"]}, "parameters"?: {"id": [{"name": "value"}]}}`; `nil`
    /// for anything else.
    public init?(json bytes: [UInt8]) {
        guard let root = try? JSONParser().parse(bytes), let list = root["pages"]?.arrayValue else { return nil }
        pages = list.compactMap(\.stringValue)
        scenarios = [:]
        if case .object(let object)? = root["scenarios"] {
            for member in object.members {
                scenarios[member.key] = member.value.arrayValue?.compactMap(\.stringValue) ?? []
            }
        }
        parameters = [:]
        if case .object(let object)? = root["parameters"] {
            for member in object.members {
                parameters[member.key] = member.value.arrayValue?.compactMap { sample in
                    sample.objectValue.map { object in
                        Dictionary(
                            object.members.compactMap { member in member.value.stringValue.map { (member.key, $0) } },
                            uniquingKeysWith: { first, _ in first })
                    }
                }
            }
        }
    }
}

extension ContractVerifier {
    /// `GET /v1/pages`, or `nil` when the server has no index (any status but 200, or another body).
    func fetchIndex() async -> PageIndex? {
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + ContractRoute.pageIndex.path()) else { return nil }
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        guard let response = try? await probe.send(request), response.status == 200 else { return nil }
        return PageIndex(json: response.body)
    }
}
