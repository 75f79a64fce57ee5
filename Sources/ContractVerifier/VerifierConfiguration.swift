import Foundation
import PageModel

/// What `verify` crawls and how far, with documented defaults.
public struct VerifierConfiguration: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    public var baseURL: URL
    /// The pages the crawl starts from. Default `home`.
    public var entryPages: [PageTarget]
    /// Next-page requests per page target before pagination counts as not terminating. Default 10,000.
    public var maximumChunks: Int
    /// Page targets (a page id with one set of parameters) crawled in all. Default 500.
    public var maximumPageLoads: Int
    /// Distinct parameter sets crawled per page id (`product?productID=…`); further links are counted, not
    /// followed. Default 8.
    public var maximumParameterSetsPerPage: Int
    /// Seconds each request may wait for data. Default 30.
    public var timeout: Double
    /// Extra headers sent with every request (e.g. `Authorization`). Default none.
    public var headers: [String: String]
    /// Violations kept per check of one page; further ones are counted. Default 50.
    public var maximumViolationsPerCheck: Int
    /// The client to crawl as (`--capabilities PROFILE`): its `X-Flow-Client` header is sent with every request
    /// and every page and chunk must contain only what it renders. Default `nil` (no declaration).
    public var capabilities: CapabilityProfile?
    /// Crawl every page the server's index (`GET /v1/pages`) lists, after the entry pages (`--all`). Default
    /// false: the index is only read to warn about pages the crawl did not reach.
    public var crawlAll = false
    /// Problem answers that are legal outcomes of an api action, by action name (`--pages` reads them from the page
    /// files' declared answers; `--expect-problem NAME=CODE[:STATUS]` adds more). Such an answer is checked for
    /// its shape — `application/problem+json` with the declared code, and the declared status when one is given —
    /// and is not an `action_failed`. Default none.
    public var expectedProblems: [String: [ExpectedProblem]] = [:]
    /// Send requests a device never sends, to check they are refused as the contract says: a page id that does not
    /// exist (`404` problem+json), an action request naming a widget the page does not have (`400 unknown_widget`)
    /// or an event the widget does not declare (`400 undeclared_event`). `verify` targets test and staging
    /// servers, so this is on; `--no-negative-probes` turns it off. Default true.
    public var negativeProbes = true
    /// The least share (0–100) of the standard kinds the crawl must exercise (``ExercisedKinds/percent(of:)``):
    /// below it the run fails (`--min-coverage PERCENT`). Default `nil`: no threshold.
    public var minimumCoverage: Double?

    public init(
        baseURL: URL, entryPages: [PageTarget] = [PageTarget(pageID: "home")], maximumChunks: Int = 10_000,
        maximumPageLoads: Int = 500, maximumParameterSetsPerPage: Int = 8, timeout: Double = 30,
        headers: [String: String] = [:], maximumViolationsPerCheck: Int = 50, capabilities: CapabilityProfile? = nil
    ) {
        self.capabilities = capabilities
        self.baseURL = baseURL
        self.entryPages = entryPages
        self.maximumChunks = maximumChunks
        self.maximumPageLoads = maximumPageLoads
        self.maximumParameterSetsPerPage = maximumParameterSetsPerPage
        self.timeout = timeout
        self.headers = headers
        self.maximumViolationsPerCheck = maximumViolationsPerCheck
    }
}

/// A problem an api action may answer with, as a legal outcome (a business error such as `409
/// order_already_shipped`).
public struct ExpectedProblem: Sendable, Hashable {
    /// The problem's stable `code`.
    public var code: String
    /// The HTTP status it must come with; `nil` accepts any 4xx or 5xx.
    public var status: Int?

    public init(code: String, status: Int? = nil) {
        self.code = code
        self.status = status
    }

    /// Parses `NAME=CODE` or `NAME=CODE:STATUS` (the `--expect-problem` form): the action name and the problem.
    public static func parse(_ text: String) -> (action: String, problem: ExpectedProblem)? {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        let problem = parts[1].split(separator: ":", maxSplits: 1).map(String.init)
        guard let code = problem.first, !code.isEmpty else { return nil }
        guard problem.count == 1 else {
            guard let status = Int(problem[1]), (400...599).contains(status) else { return nil }
            return (parts[0], ExpectedProblem(code: code, status: status))
        }
        return (parts[0], ExpectedProblem(code: code))
    }
}

/// One page to crawl: a page id and the page parameters sent with its first load.
public struct PageTarget: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var pageID: String
    public var parameters: [String: String]

    public init(pageID: String, parameters: [String: String] = [:]) {
        self.pageID = pageID
        self.parameters = parameters
    }

    /// Parses `pageID` or `pageID?name=value&…` (the form `--page` takes and reports print).
    public init?(_ text: String) {
        let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let id = parts.first, !id.isEmpty else { return nil }
        pageID = String(id)
        parameters = [:]
        guard parts.count == 2 else { return }
        for pair in parts[1].split(separator: "&") {
            let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(nameValue[0]).removingPercentEncoding ?? String(nameValue[0])
            let value =
                nameValue.count == 2 ? (String(nameValue[1]).removingPercentEncoding ?? String(nameValue[1])) : ""
            parameters[name] = value
        }
    }

    /// `pageID` or `pageID?a=1&b=2` (parameters sorted by name).
    public var description: String {
        guard !parameters.isEmpty else { return pageID }
        return pageID + "?"
            + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    }

    public static func < (lhs: PageTarget, rhs: PageTarget) -> Bool { lhs.description < rhs.description }
}
