import Foundation

/// A value behind a lock. `Synchronization.Mutex` needs iOS 18 / macOS 15; the client library supports iOS 17 /
/// macOS 14, so PageStore locks with Foundation's `NSLock`.
// @unchecked Sendable: `value` is only reached through `withLock`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
