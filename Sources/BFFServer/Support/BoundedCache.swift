import Synchronization

/// A thread-safe cache that holds at most about `capacity` entries in two generations: lookups promote entries
/// from the old generation to the current one, and when the current generation is full the old one is dropped
/// and the current one becomes old. Recently used entries survive a turnover, and no lookup pays for eviction
/// bookkeeping (the cost of a strict LRU).
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Generations {
        var current: [Key: Value] = [:]
        var old: [Key: Value] = [:]
    }

    private let generations = Mutex(Generations())
    /// Entries per generation.
    let capacity: Int

    /// - Parameter capacity: entries per generation (at most twice as many are held); at least 1.
    init(capacity: Int) {
        precondition(capacity >= 1, "a cache holds at least one entry")
        self.capacity = capacity
    }

    /// The cached value for `key`.
    subscript(key: Key) -> Value? {
        generations.withLock { generations in
            if let value = generations.current[key] { return value }
            guard let value = generations.old.removeValue(forKey: key) else { return nil }
            Self.insert(key, value, into: &generations, capacity: capacity)
            return value
        }
    }

    /// Stores `value` for `key`.
    func set(_ key: Key, _ value: Value) {
        generations.withLock { Self.insert(key, value, into: &$0, capacity: capacity) }
    }

    /// The cached value for `key`, or `make()`'s, which is then cached; `nil` from `make` is not cached. `make`
    /// runs outside the lock, so two threads may compute the same value once each.
    func value<Failure: Error>(for key: Key, _ make: () throws(Failure) -> Value?) throws(Failure) -> Value? {
        if let value = self[key] { return value }
        guard let value = try make() else { return nil }
        set(key, value)
        return value
    }

    /// Drops every entry.
    func removeAll() {
        generations.withLock { $0 = Generations() }
    }

    /// Every entry held now (both generations), in no particular order.
    var entries: [(key: Key, value: Value)] {
        generations.withLock { $0.old.map { ($0.key, $0.value) } + $0.current.map { ($0.key, $0.value) } }
    }

    /// Entries held now (both generations).
    var count: Int { generations.withLock { $0.current.count + $0.old.count } }

    private static func insert(_ key: Key, _ value: Value, into generations: inout Generations, capacity: Int) {
        if generations.current.count >= capacity, generations.current[key] == nil {
            generations.old = generations.current
            generations.current = [:]
            generations.current.reserveCapacity(capacity)
        }
        generations.current[key] = value
    }
}
