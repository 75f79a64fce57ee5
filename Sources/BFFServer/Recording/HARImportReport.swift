/// What `flow-bff import har` did with each entry of an archive (``HARImporter``).
public struct HARImportReport: Sendable {
    /// One page (its first load and the chunks chained to it) or one action answer, recorded.
    public struct Imported: Sendable {
        /// `page feed`, `page product?productID=p-1042`, `action home.dismissPromo`.
        public var subject: String
        /// The archive entries it came from, in order.
        public var entries: [Int]
        public var outcome: RecordingOutcome
    }

    /// An entry that was not imported, and why.
    public struct Skipped: Sendable {
        public var entry: Int
        /// `GET https://…/v1/pages/home`.
        public var request: String
        public var reason: String
        /// True when the entry is a contract answer that could not be imported because it is invalid (an
        /// undecodable envelope, a file the server would refuse, a failed write): `import har` then exits 1.
        public var isFailure: Bool
    }

    public var imported: [Imported] = []
    public var skipped: [Skipped] = []

    public init() {}

    /// Whether an entry could not be imported because it is invalid.
    public var hasFailures: Bool { skipped.contains { $0.isFailure } }
}
