import PageModel
import Synchronization

/// One mock session: the scenarios it chose and its own copies of the documents its api actions changed.
public struct MockSession: Sendable {
    public var id: String
    /// Seconds on the store's clock.
    public var createdAt: Double
    public var lastSeen: Double
    /// Scenario per page id; the key `*` applies to every page without its own entry.
    public var scenarios: [String: String] = [:]
    /// The session's copies of documents, by page id.
    var documents: [String: SessionDocument] = [:]
    /// The session's copy of the data, once an action answer changed it (``DataChange``).
    var data: SessionData?
    /// Api actions this session fired.
    public var actionCount = 0
    /// Network-simulation rules for this session's requests only, checked before the global runtime rules.
    public var faultRules: [FaultRule] = []

    /// The scenario this session chose for `pageID`, if any.
    public func scenario(for pageID: String) -> String? { scenarios[pageID] ?? scenarios["*"] }

    /// Page ids of the documents this session changed (not the pages its data made for query parameters, kept as
    /// `<pageID>?<query>`).
    public var changedPageIDs: [String] { documents.keys.filter { !$0.contains("?") }.sorted() }
}

/// A session's copy of a page: the catalog page with the session's mutations applied, with its own content
/// version (cursors and ETags follow it). Dropped when the page file's version changes.
struct SessionDocument: Sendable {
    var page: CatalogPage
    /// The catalog version of the page it was copied from.
    var baseVersion: String
}

/// A session's copy of the data documents, changed by its actions' answers. Dropped when the data files change.
struct SessionData: Sendable {
    var documents: DataDocuments
    /// The version of the catalog's data it was copied from.
    var baseVersion: String
}

/// Valid session ids: 1–128 characters of letters, digits, `.`, `_`, `~` and `-`.
public enum SessionID {
    public static let pattern = "[A-Za-z0-9._~-]{1,128}"

    public static func isValid(_ id: some StringProtocol) -> Bool {
        let bytes = Array(id.utf8)
        return (1...128).contains(bytes.count)
            && bytes.allSatisfy {
                PageID.isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "-")
            }
    }
}

/// Bounded per-session state: at most `capacity` sessions (the least recently used is evicted), and sessions idle
/// for `idleSeconds` expire. The clock is injected so tests control time.
public final class SessionStore: Sendable {
    public struct Statistics: Sendable, Hashable {
        public var count: Int
        public var evicted: Int
        public var expired: Int
    }

    private struct State {
        var sessions: [String: MockSession] = [:]
        var evicted = 0
        var expired = 0
    }

    public let capacity: Int
    public let idleSeconds: Double
    private let clock: @Sendable () -> Double
    private let state = Mutex(State())

    /// - Parameters:
    ///   - capacity: most sessions kept (≥ 1).
    ///   - idleSeconds: a session unused for this long expires.
    ///   - clock: seconds, monotonic.
    public init(capacity: Int, idleSeconds: Double, clock: @escaping @Sendable () -> Double) {
        precondition(capacity >= 1, "a session store holds at least one session")
        self.capacity = capacity
        self.idleSeconds = idleSeconds
        self.clock = clock
    }

    /// The session, marked as used now; `nil` when unknown or expired.
    public func session(_ id: String) -> MockSession? {
        let now = clock()
        return state.withLock { state in
            Self.expire(&state, now: now, idle: idleSeconds)
            state.sessions[id]?.lastSeen = now
            return state.sessions[id]
        }
    }

    /// Runs `body` on the session, creating it (and evicting the least recently used one at capacity) if needed.
    @discardableResult
    public func update<T>(_ id: String, _ body: (inout MockSession) throws -> T) rethrows -> T {
        let now = clock()
        return try state.withLock { state in
            Self.expire(&state, now: now, idle: idleSeconds)
            if state.sessions[id] == nil {
                if state.sessions.count >= capacity,
                    let oldest = state.sessions.values.min(by: { $0.lastSeen < $1.lastSeen })
                {
                    state.sessions[oldest.id] = nil
                    state.evicted += 1
                }
                state.sessions[id] = MockSession(id: id, createdAt: now, lastSeen: now)
            }
            state.sessions[id]!.lastSeen = now
            return try body(&state.sessions[id]!)
        }
    }

    /// Forgets a session (its scenarios and documents); returns whether it existed.
    @discardableResult
    public func remove(_ id: String) -> Bool {
        state.withLock { $0.sessions.removeValue(forKey: id) != nil }
    }

    /// Forgets every session.
    public func removeAll() {
        state.withLock { $0.sessions.removeAll() }
    }

    /// Every live session, most recently used first.
    public var sessions: [MockSession] {
        let now = clock()
        return state.withLock { state in
            Self.expire(&state, now: now, idle: idleSeconds)
            return state.sessions.values.sorted { ($0.lastSeen, $0.id) > ($1.lastSeen, $1.id) }
        }
    }

    public var statistics: Statistics {
        state.withLock { Statistics(count: $0.sessions.count, evicted: $0.evicted, expired: $0.expired) }
    }

    private static func expire(_ state: inout State, now: Double, idle: Double) {
        guard !state.sessions.isEmpty else { return }
        let before = state.sessions.count
        state.sessions = state.sessions.filter { now - $0.value.lastSeen < idle }
        state.expired += before - state.sessions.count
    }
}
