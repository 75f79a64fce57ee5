import Synchronization

/// Postbacks whose signature already verified, so a replayed or popular cursor (many clients paging the same feed)
/// costs a dictionary lookup instead of an HMAC. Only successful verifications are kept, keyed by the exact
/// postback text; the page version is still checked on every request. Bounded: cleared when full.
final class VerifiedCursorCache: Sendable {
    private let entries = Mutex<[String: Cursor]>([:])
    /// Entries kept before the cache is cleared. Default 8,192.
    let capacity: Int

    init(capacity: Int = 8_192) {
        self.capacity = capacity
    }

    /// The cursor `postback` carries: from the cache, or decoded and verified by `codec` (and then cached).
    func cursor(for postback: String, codec: CursorCodec) throws(CursorError) -> Cursor {
        if let cursor = entries.withLock({ $0[postback] }) { return cursor }
        let cursor = try codec.decode(postback)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[postback] = cursor
        }
        return cursor
    }
}
