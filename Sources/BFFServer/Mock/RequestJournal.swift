import PageModel
import Synchronization

/// One request as the mock backend saw it.
public struct JournalEntry: Sendable {
    /// 1, 2, 3, … across the server's life (so gaps show dropped entries).
    public var sequence: UInt64 = 0
    /// Unix time in seconds.
    public var time: Double
    public var method: String
    public var target: String
    /// Header fields in order; `Authorization` values are redacted.
    public var headers: [(name: String, value: String)]
    public var bodyBytes: Int
    /// First 16 hex digits of the body's SHA-256; empty for an empty body.
    public var bodyDigest: String
    /// The body's first `mock.journalBodyBytes` bytes.
    public var body: [UInt8] = []
    /// True when ``body`` is only the start of the body.
    public var bodyTruncated = false
    /// The status sent; 0 when a fault sent none (reset, empty).
    public var status: Int
    /// Bytes of the answer's body as sent (gzipped when it went gzipped; 0 for a `304`, a `HEAD` or a fault that
    /// sent nothing).
    public var responseBytes = 0
    public var session: String?
    public var scenario: String?
    /// Simulation applied: `latency=120ms`, `reset`, `status=503`, `truncate`, `drip`.
    public var faults: [String]
    /// For problem answers: the `code` and `detail` (a 404's near miss: "Did you mean …?").
    public var problemCode: String?
    public var detail: String?
    /// The answer's body as the responder made it (before gzip), its first `mock.journalBodyBytes` bytes; empty for
    /// an answer without a body, a fault that sent nothing and a streamed answer.
    public var responseBody: [UInt8] = []
    /// True when ``responseBody`` is only the start of the answer's body.
    public var responseBodyTruncated = false
    /// The URL the proxy forwarded the request to (docs/proxy.md); `nil` when it was answered locally.
    public var upstream: String? = nil
    /// The contract findings on the upstream's answer (code, JSON pointer, message); empty when it obeyed.
    public var contract: [Diagnostic] = []
}

/// A bounded ring of recent requests that counts what it dropped.
public final class RequestJournal: Sendable {
    public struct Page: Sendable {
        public var entries: [JournalEntry]
        /// Entries overwritten because the ring was full, since the last clear.
        public var dropped: UInt64
        /// Entries recorded since the last clear.
        public var recorded: UInt64
    }

    private struct Ring {
        var slots: [JournalEntry?]
        var next = 0
        var count = 0
        var sequence: UInt64 = 0
        var recorded: UInt64 = 0
        var dropped: UInt64 = 0
    }

    public let capacity: Int
    private let ring: Mutex<Ring>

    public init(capacity: Int) {
        precondition(capacity >= 1, "a journal keeps at least one entry")
        self.capacity = capacity
        ring = Mutex(Ring(slots: Array(repeating: nil, count: capacity)))
    }

    /// Records `entry`, overwriting the oldest one when full; returns its sequence number.
    @discardableResult
    public func append(_ entry: JournalEntry) -> UInt64 {
        ring.withLock { ring in
            var entry = entry
            ring.sequence += 1
            ring.recorded += 1
            entry.sequence = ring.sequence
            if ring.count == ring.slots.count { ring.dropped += 1 } else { ring.count += 1 }
            ring.slots[ring.next] = entry
            ring.next = (ring.next + 1) % ring.slots.count
            return ring.sequence
        }
    }

    /// Entries oldest first, optionally only one session's and only after a sequence number, at most `limit`
    /// (the newest ones).
    public func entries(session: String? = nil, after: UInt64 = 0, limit: Int = .max) -> Page {
        ring.withLock { ring in
            var entries: [JournalEntry] = []
            let start = (ring.next - ring.count + ring.slots.count) % ring.slots.count
            for offset in 0..<ring.count {
                guard let entry = ring.slots[(start + offset) % ring.slots.count], entry.sequence > after else {
                    continue
                }
                if let session, entry.session != session { continue }
                entries.append(entry)
            }
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
            return Page(entries: entries, dropped: ring.dropped, recorded: ring.recorded)
        }
    }

    /// Empties the ring and zeroes the counters (sequence numbers keep increasing).
    public func clear() {
        ring.withLock { ring in
            ring.slots = Array(repeating: nil, count: ring.slots.count)
            ring.next = 0
            ring.count = 0
            ring.recorded = 0
            ring.dropped = 0
        }
    }

    public var count: Int { ring.withLock { $0.count } }

    /// Entries matching `query`, oldest first, at most `limit` (the newest ones).
    func entries(matching query: JournalQuery, limit: Int = .max) -> Page {
        var page = entries(session: query.session, after: query.after)
        page.entries.removeAll { !query.matches($0) }
        if page.entries.count > limit { page.entries.removeFirst(page.entries.count - limit) }
        return page
    }
}
