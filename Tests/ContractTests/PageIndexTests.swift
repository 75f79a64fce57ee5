import BFFServer
import BFFTesting
import ContractVerifier
import Foundation
import HTTPTesting
import PageModel
import Testing

/// The optional page index, `GET /v1/pages`, and `verify --all`: pages nothing links to are crawled, and a
/// crawl that misses listed pages says so.
@Suite struct PageIndexTests {
    static let bundledPages = ["cart", "checkout", "empty", "feed", "home", "order", "orders", "product"]
    /// `order` is made per data item: it answers only with `?orderID=` (the index lists samples).
    static let orderSamples = [["orderID": "o-1001"], ["orderID": "o-1023"], ["orderID": "o-1045"]]

    @Test func theServerListsItsPagesSortedAndInMockModeTheirScenarios() async throws {
        try await withTestServer { server in
            let answer = try await HTTPTestClient(port: server.port).get("/v1/pages")
            #expect(answer.status == 200)
            let index = try #require(PageIndex(json: answer.body))
            #expect(index.pages == Self.bundledPages)
            #expect(index.scenarios.isEmpty, "no scenarios outside mock mode")
            #expect(index.parameters == ["order": Self.orderSamples])
            #expect(index.targets.filter { $0.pageID == "order" }.map(\.parameters) == Self.orderSamples)
        }
        var configuration = BFFConfiguration()
        configuration.mock.enabled = true
        try await withTestServer(configuration: configuration) { server in
            let answer = try await HTTPTestClient(port: server.port).get("/v1/pages")
            let index = try #require(PageIndex(json: answer.body))
            #expect(index.pages == Self.bundledPages)
            #expect(index.scenarios["product"] == ["p-1042"])
        }
    }

    @Test func theIndexReaderTakesPagesAndScenariosAndRejectsOtherBodies() {
        let index = PageIndex(
            json: Array(
                #"{"pages":["a","b"],"scenarios":{"a":["empty","error"]},"parameters":{"b":[{"id":"1"},{"id":"2"}]},"x":1}"#
                    .utf8))
        #expect(
            index
                == PageIndex(
                    pages: ["a", "b"], scenarios: ["a": ["empty", "error"]],
                    parameters: ["b": [["id": "1"], ["id": "2"]]]))
        #expect(
            index?.targets == [
                PageTarget(pageID: "a"), PageTarget(pageID: "b", parameters: ["id": "1"]),
                PageTarget(pageID: "b", parameters: ["id": "2"]),
            ])
        #expect(PageIndex(json: Array(#"{"page":"a"}"#.utf8)) == nil)
        #expect(PageIndex(json: Array("<html>".utf8)) == nil)
    }

    /// `verify --all` from `entry`.
    @MainActor
    static func crawlAll(_ url: URL, entry: String) async throws -> VerificationReport {
        var configuration = VerifierConfiguration(baseURL: url, entryPages: [PageTarget(pageID: entry)])
        configuration.crawlAll = true
        return try await ContractVerifier(configuration: configuration).run()
    }

    @Test func aCrawlThatMissesListedPagesWarnsAndAllCrawlsThem() async throws {
        try await withTestServer { server in
            let url = URL(string: server.baseURL)!
            let partial = try await crawl(url, entry: ["empty"])
            #expect(partial.passed)
            #expect(partial.coverage.indexedPages == 8)
            #expect(
                partial.coverage.uncrawledIndexedPages == [
                    "cart", "checkout", "feed", "home", "order", "orders", "product",
                ])
            #expect(partial.summary.contains("warning: partial coverage: the page index (GET /v1/pages) lists 7 of 8"))
            let all = try await Self.crawlAll(url, entry: "empty")
            #expect(all.passed, "\(all.summary)")
            #expect(all.coverage.pages == 8)
            #expect(all.coverage.uncrawledIndexedPages.isEmpty)
            #expect(!all.summary.contains("partial coverage"))
        }
    }

    @Test func inMockModeAllCrawlsEveryScenarioAndOtherwiseWarns() async throws {
        var configuration = BFFConfiguration()
        configuration.mock.enabled = true
        try await withTestServer(configuration: configuration) { server in
            let url = URL(string: server.baseURL)!
            let partial = try await crawl(url, entry: Self.bundledPages.filter { $0 != "order" })
            #expect(partial.passed)
            #expect(partial.coverage.scenarios == 1)
            #expect(partial.coverage.crawledScenarios == 0)
            #expect(partial.summary.contains("lists 1 mock scenarios, 1 not crawled; --all crawls each"))
            let all = try await Self.crawlAll(url, entry: "home")
            #expect(all.passed, "\(all.summary)")
            #expect(all.coverage.crawledScenarios == 1)
            let scenario = try #require(all.pages.first { $0.page == "product [scenario p-1042]" })
            #expect(scenario.state == "loaded")
            #expect(!all.summary.contains("partial coverage"))
        }
    }
}
