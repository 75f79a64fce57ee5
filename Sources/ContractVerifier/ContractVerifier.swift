import Foundation
import PageModel
import PageStore

/// The device crawl: drives a running server through ``PageStore`` over its real ``HTTPPageLoader``, exactly as
/// a phone would, and reports every contract violation.
///
/// From the entry pages (and, with ``VerifierConfiguration/crawlAll``, every page of the server's index
/// `GET /v1/pages`) it follows every page link (`open_bottom_sheet` actions and effects, `…://pages/{id}`
/// deeplinks), and on each page target: loads it, lints every document it receives, paginates to the end (never an
/// `.empty` page), checks ids, replays postbacks by GET and POST and tampers with them, fires every api action at
/// the first point a device can and on the whole document (following a `replacePage`'s pagination), revalidates
/// the page after its actions, checks the widget-state lifecycle around pagination and refresh, and checks content
/// types, gzip, ETag/304, `Accept-Language` variants and `Vary` with raw HTTP. `docs/contract-testing.md` lists the
/// checks, their codes and the contract rule each one proves.
///
/// ```swift
/// let verifier = ContractVerifier(configuration: .init(baseURL: url, entryPages: [PageTarget(pageID: "home")]))
/// let report = try await verifier.run()
/// print(report.summary)
/// ```
@MainActor
public final class ContractVerifier {
    public let configuration: VerifierConfiguration
    let loader: RecordingLoader
    let probe: HTTPProbe
    /// Called as the crawl advances (``VerifierProgress``); `flow-bff verify --progress` renders it. Default none.
    public var onProgress: ((VerifierProgress) -> Void)?
    /// Progress of the crawl so far, for ``onProgress``.
    var progress = VerifierProgress(event: .pageStarted, pagesDone: 0, pagesQueued: 0, violations: 0, page: "")

    public init(configuration: VerifierConfiguration) {
        self.configuration = configuration
        var http = HTTPPageLoader.Configuration(baseURL: configuration.baseURL, timeout: configuration.timeout)
        http.headers = configuration.headers
        loader = RecordingLoader(http: HTTPPageLoader(configuration: http))
        probe = HTTPProbe(timeout: configuration.timeout, headers: configuration.headers)
    }

    /// Crawls the server and returns what it found.
    ///
    /// - Throws: ``VerifierError`` when the server cannot be reached at all (nothing listens: connection refused,
    ///   unknown host); everything a listening server does wrong — a broken first answer included — is a
    ///   ``Violation`` in the report instead.
    public func run() async throws(VerifierError) -> VerificationReport {
        let started = ContinuousClock.now
        var report = VerificationReport(target: configuration.baseURL.absoluteString)
        report.minimumCoverage = configuration.minimumCoverage
        guard let first = configuration.entryPages.first else {
            throw VerifierError(message: "no entry page to crawl")
        }
        do {
            _ = try await probe.send(loader.http.urlRequest(for: PageRequest(pageID: first.pageID, kind: .initial)))
        } catch  where error.unreachable {
            throw VerifierError(message: "cannot reach \(configuration.baseURL.absoluteString): \(error)")
        } catch {
            // A server listens but its answer is broken (reset, malformed, undecodable): the crawl reports it.
        }
        var queue: [PageTarget] = []
        var queued: Set<PageTarget> = []
        var parameterSets: [String: Int] = [:]
        var skipped: Set<PageTarget> = []
        var referrers: [PageTarget: String] = [:]
        func enqueue(_ target: PageTarget, from referrer: String? = nil) {
            guard !queued.contains(target), !skipped.contains(target) else { return }
            let reason: String? =
                queued.count >= configuration.maximumPageLoads
                ? "maximumPageLoads (\(configuration.maximumPageLoads))"
                : parameterSets[target.pageID, default: 0] >= configuration.maximumParameterSetsPerPage
                    ? "maximumParameterSetsPerPage (\(configuration.maximumParameterSetsPerPage))" : nil
            if let reason {
                skipped.insert(target)
                report.coverage.skippedLinks += 1
                report.coverage.skippedTargets.append(
                    SkippedTarget(target: target.description, linkedFrom: referrer, reason: reason))
                return
            }
            queued.insert(target)
            parameterSets[target.pageID, default: 0] += 1
            queue.append(target)
        }
        for target in configuration.entryPages { enqueue(target) }
        let index = await fetchIndex()
        if configuration.crawlAll, let index {
            for target in index.targets { enqueue(target) }
        }
        var next = 0
        var actionNames: Set<String> = []
        var pageIDs: Set<String> = []
        while next < queue.count {
            let target = queue[next]
            next += 1
            let crawl = PageCrawl(target: target, referrer: referrers[target], verifier: self)
            reportProgress(.pageStarted, page: target.description, queued: queue.count)
            await crawl.run()
            report.pages.append(crawl.report)
            progress.pagesDone += 1
            progress.violations += crawl.report.violationCount
            progress.actionRequests += crawl.report.actionRequests
            pageIDs.insert(target.pageID)
            actionNames.formUnion(crawl.report.actions)
            report.coverage.sections += crawl.report.sections
            report.coverage.widgets += crawl.report.widgets
            report.coverage.cursors += crawl.report.cursors
            report.coverage.actionRequests += crawl.report.actionRequests
            report.coverage.exercised.formUnion(crawl.report.exercised)
            for link in crawl.links {
                if referrers[link] == nil { referrers[link] = target.description }
                enqueue(link, from: target.description)
            }
            reportProgress(.pageFinished, page: target.description, queued: queue.count)
        }
        report.coverage.pages = pageIDs.count
        report.coverage.pageLoads = report.pages.count
        report.coverage.actions = actionNames.count
        if let index {
            report.coverage.indexedPages = index.pages.count
            report.coverage.uncrawledIndexedPages = index.pages.filter { !pageIDs.contains($0) }
            report.coverage.scenarios = index.scenarios.values.reduce(0) { $0 + $1.count }
            if configuration.crawlAll {
                report.coverage.crawledScenarios = await crawlScenarios(index, into: &report)
                report.coverage.pageLoads = report.pages.count
            }
        }
        let elapsed = ContinuousClock.now - started
        report.durationSeconds =
            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return report
    }
}

extension ContractVerifier {
    /// Reports `event` to ``onProgress``.
    func reportProgress(_ event: VerifierProgress.Event, page: String, queued: Int? = nil, chunks: Int = 0) {
        guard let onProgress else { return }
        progress.event = event
        progress.page = page
        progress.chunks = chunks
        if let queued { progress.pagesQueued = queued }
        onProgress(progress)
    }
}

/// `verify` could not run: the server is unreachable or the configuration is unusable (exit status 2).
public struct VerifierError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
