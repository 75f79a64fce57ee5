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

    public init(pages: [String], scenarios: [String: [String]] = [:]) {
        self.pages = pages
        self.scenarios = scenarios
    }

    /// Reads `{"pages": ["…"], "scenarios"?: {"id": ["…"]}}`; `nil` for anything else.
    public init?(json bytes: [UInt8]) {
        guard let root = try? JSONParser().parse(bytes), let list = root["pages"]?.arrayValue else { return nil }
        pages = list.compactMap(\.stringValue)
        scenarios = [:]
        if case .object(let object)? = root["scenarios"] {
            for member in object.members {
                scenarios[member.key] = member.value.arrayValue?.compactMap(\.stringValue) ?? []
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
