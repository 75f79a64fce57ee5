/// Where a running crawl is, reported to ``ContractVerifier/onProgress`` when a page target starts, every
/// ``chunkInterval`` chunks of a long page, and when a page target is done.
public struct VerifierProgress: Sendable, Hashable {
    public enum Event: String, Sendable, Hashable {
        case pageStarted, chunks, pageFinished
    }

    /// How many next pages of one page target pass between two `chunks` reports.
    public static let chunkInterval = 100

    public var event: Event
    /// Page targets crawled completely.
    public var pagesDone: Int
    /// Page targets known so far (crawled, being crawled and queued).
    public var pagesQueued: Int
    /// Violations found so far.
    public var violations: Int
    /// The page target being crawled (or just finished).
    public var page: String
    /// Next pages followed on that page target so far.
    public var chunks: Int
    /// Api action requests sent by the page targets crawled completely.
    public var actionRequests = 0

    public init(event: Event, pagesDone: Int, pagesQueued: Int, violations: Int, page: String, chunks: Int = 0) {
        self.event = event
        self.pagesDone = pagesDone
        self.pagesQueued = pagesQueued
        self.violations = violations
        self.page = page
        self.chunks = chunks
    }

    /// `verify: 3/7 pages, 12 action requests, 2 violations, feed (400 chunks)`.
    public var line: String {
        var text = "verify: \(pagesDone)/\(pagesQueued) pages"
        if actionRequests > 0 { text += ", \(actionRequests) action requests" }
        text += ", \(violations) violations"
        if event != .pageFinished || pagesDone < pagesQueued {
            text += ", \(page)" + (chunks > 0 ? " (\(chunks) chunks)" : "")
        }
        return text
    }
}
