import BFFServer
import BFFTesting
import ContractVerifier
import Foundation
import FoundationXML
import HTTPCore
import PageModel
import Testing

/// `verify` over the bundled pages, its reports, its limits and its errors.
@Suite struct VerifierTests {
    @Test func theBundledPagesHonourTheContract() async throws {
        let catalog = PageCatalog.load(directory: TestServer.bundledPages)
        let report = try await withTestServer { server in
            try await crawl(URL(string: server.baseURL)!, entry: catalog.firstLoads)
        }
        #expect(report.passed, "\(report.summary)")
        let coverage = report.coverage
        #expect(coverage.pages == catalog.pageIDs.count, "every page crawled")
        #expect(coverage.actions == catalog.actions.count, "every declared action fired")
        #expect(coverage.cursors >= 9, "the feed paginated to its end")
        let feed = try #require(report.pages.first { $0.page == "feed" })
        #expect(feed.sections == catalog.pages["feed"]?.page.sections.count)
        let checks = Set(feed.checks.map(\.name))
        #expect(checks.isSuperset(of: ["load", "http", "pagination", "replay", "tampered_cursor", "lifecycle"]))
        #expect(report.summary.contains(coverage.line))
    }

    @Test func theJUnitReportIsJUnitXML() async throws {
        let broken = try #require(BrokenServer.all.first { $0.name == "mutation_missing_target" })
        let report = try await broken.run { url, entry in try await crawl(url, entry: entry) }
        let document = try XMLDocument(data: Data(report.junitXML.utf8))
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.count == report.pages.count)
        let cases = suites.flatMap { $0.elements(forName: "testcase") }
        #expect(cases.count == report.pages.reduce(0) { $0 + $1.checks.count })
        #expect(root.attribute(forName: "tests")?.stringValue == String(cases.count))
        let failures = cases.flatMap { $0.elements(forName: "failure") }
        #expect(failures.count == 1)
        #expect(root.attribute(forName: "failures")?.stringValue == "1")
        #expect(failures.first?.attribute(forName: "type")?.stringValue == "mutation_failed")
        #expect(failures.first?.stringValue?.contains("POST /v1/actions/home.dismissPromo") == true)
        // The coverage section: properties of the first suite, before its test cases.
        let first = try #require(suites.first)
        #expect(first.children?.first?.name == "properties")
        var properties: [String: String] = [:]
        for property in first.elements(forName: "properties").flatMap({ $0.elements(forName: "property") }) {
            properties[property.attribute(forName: "name")?.stringValue ?? ""] =
                property.attribute(forName: "value")?
                .stringValue
        }
        #expect(properties["coverage.pages"] == String(report.coverage.pages))
        #expect(properties["coverage.widgets"] == String(report.coverage.widgets))
        #expect(properties["coverage.actions"] == String(report.coverage.actions))
        #expect(properties["coverage.cursors"] == String(report.coverage.cursors))
        #expect(
            properties["exercised.widgetTypes"] == report.coverage.exercised.widgetTypes.sorted().joined(separator: ",")
        )
        #expect(properties["exercised.percent"] == String(Int(report.coverage.exercised.percent().rounded(.down))))
        #expect(report.coverage.widgets > 0 && !report.coverage.exercised.widgetTypes.isEmpty)
        #expect(suites.dropFirst().allSatisfy { $0.elements(forName: "properties").isEmpty })
    }

    @Test func theJSONReportListsViolationsAndCoverage() async throws {
        let broken = try #require(BrokenServer.all.first { $0.name == "duplicate_ids_across_chunks" })
        let report = try await broken.run { url, entry in try await crawl(url, entry: entry) }
        let json = try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        #expect(json["passed"] as? Bool == false)
        #expect(json["codes"] as? [String] == ["duplicate_id"])
        let violations = try #require(json["violations"] as? [[String: Any]])
        let first = try #require(violations.first)
        #expect(first["code"] as? String == "duplicate_id")
        #expect(first["request"] as? String == "GET /v1/pages/home/next?postback=chunk-2")
        #expect(first["path"] as? String == "/sections/0/id")
        #expect((json["coverage"] as? [String: Any])?["cursors"] as? Int == 1)
    }

    @Test func anEndlessCursorStopsAtTheChunkLimit() async throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            let position = Int(request.queryItem("postback") ?? "0") ?? 0
            let section = Section(id: "s\(position)", widgets: [Widget(id: "w\(position)", type: "divider")])
            let pagination = Pagination(hasMore: true, postback: String(position + 1))
            let envelope: Envelope =
                request.path.hasSuffix("/next")
                ? .nextPage(NextPage(sections: [section], pagination: pagination))
                : .page(PageModel(id: "home", sections: [section], pagination: pagination))
            return .json(envelope.encoded())
        }
        try server.start()
        let outcome: Result<VerificationReport, any Error>
        do {
            outcome = .success(
                try await crawl(URL(string: "http://" + server.localAddress)!, entry: ["home"], maximumChunks: 20))
        } catch {
            outcome = .failure(error)
        }
        server.shutdown()
        await server.stoppedAsync()
        let found = try outcome.get()
        #expect(found.codes.contains("pagination_not_terminated"))
        #expect(found.coverage.cursors == 20)
        #expect(
            found.violations.first { $0.code == "pagination_not_terminated" }?.message.contains("20 chunks") == true)
    }

    @Test func anUnreachableServerIsAnErrorNotAReport() async throws {
        await #expect(throws: VerifierError.self) {
            _ = try await crawl(URL(string: "http://127.0.0.1:1")!, entry: ["home"])
        }
    }

    @Test func pageTargetsParseAndPrintWithSortedParameters() {
        let target = PageTarget("product?productID=p-1&color=red%20oak")
        #expect(target == PageTarget(pageID: "product", parameters: ["productID": "p-1", "color": "red oak"]))
        #expect(target?.description == "product?color=red oak&productID=p-1")
        #expect(PageTarget("home") == PageTarget(pageID: "home"))
        #expect(PageTarget("?a=1") == nil)
    }

    @Test func uncheckedCatalogsServeBrokenPagesOnlyWhenAskedTo() throws {
        let directory = brokenServersDirectory + "/mutation_missing_target/pages"
        let checked = PageCatalog.load(directory: directory)
        #expect(checked.pages.isEmpty)
        #expect(throws: CatalogError.self) { _ = try makeServer(configuration: BFFConfiguration(), catalog: checked) }
        let unchecked = PageCatalog.load(directory: directory, unchecked: true)
        #expect(unchecked.pageIDs == ["home"])
        #expect(unchecked.diagnostics.containsErrors, "the errors are still reported")
        #expect(unchecked.isUnchecked)
    }
}
