import PageModel

extension ContractVerifier {
    /// The header that selects a mock scenario (docs/mock.md).
    static let scenarioHeader = "X-Flow-Scenario"

    /// With ``VerifierConfiguration/crawlAll`` against a mock backend: crawls each scenario the page index lists
    /// as one more page target — its page, requested with `X-Flow-Scenario: NAME` — reported as
    /// `page [scenario NAME]`. Links from a scenario are not followed (the header would apply to every page).
    ///
    /// - Returns: how many scenarios were crawled.
    func crawlScenarios(_ index: PageIndex, into report: inout VerificationReport) async -> Int {
        var crawled = 0
        for pageID in index.scenarios.keys.sorted() {
            for name in index.scenarios[pageID] ?? [] {
                var scenario = configuration
                scenario.headers[Self.scenarioHeader] = name
                scenario.entryPages = [PageTarget(pageID: pageID)]
                scenario.crawlAll = false
                scenario.maximumPageLoads = 1
                let label = "\(pageID) [scenario \(name)]"
                reportProgress(.pageStarted, page: label)
                guard let found = try? await ContractVerifier(configuration: scenario).run() else { continue }
                for var page in found.pages {
                    page.relabel(label)
                    report.pages.append(page)
                    report.coverage.exercised.formUnion(page.exercised)
                    progress.violations += page.violationCount
                    report.coverage.sections += page.sections
                    report.coverage.widgets += page.widgets
                    report.coverage.cursors += page.cursors
                    report.coverage.actionRequests += page.actionRequests
                }
                crawled += 1
                progress.pagesDone += 1
                reportProgress(.pageFinished, page: label)
            }
        }
        return crawled
    }
}

extension PageReport {
    /// Names this page report, and each of its violations, `label`.
    mutating func relabel(_ label: String) {
        page = label
        for check in checks.indices {
            for violation in checks[check].violations.indices { checks[check].violations[violation].page = label }
        }
    }
}
