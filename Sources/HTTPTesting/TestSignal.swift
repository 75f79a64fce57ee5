import Synchronization

/// A counting event that any thread can signal (an event-loop handler, a signal handler, a callback) and a test
/// awaits with a time bound — the async replacement of `DispatchSemaphore.wait(timeout:)`, which would block a
/// thread of the Swift concurrency pool.
///
/// ```swift
/// let entered = TestSignal()
/// router.get("/slow") { _ in entered.signal(); return … }
/// try await entered.wait(for: 5)   // five handlers entered, or TestSignal.Timeout after 10 s
/// ```
public final class TestSignal: Sendable {
    /// The awaited number of signals did not arrive in time.
    public struct Timeout: Error, CustomStringConvertible {
        public var description: String
    }

    private struct Waiter {
        var target: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var count = 0
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        /// Waits whose timer fired before they registered.
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// How many times ``signal()`` was called.
    public var count: Int { state.withLock { $0.count } }

    /// Counts one event and resumes the waiters it satisfies. Callable from any thread.
    public func signal() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.count += 1
            let done = state.waiters.filter { $0.value.target <= state.count }
            for id in done.keys { state.waiters[id] = nil }
            return done.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Suspends until ``signal()`` was called `count` times in total; throws ``Timeout`` after `timeout`.
    public func wait(for count: Int = 1, timeout: Duration = .seconds(10)) async throws {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            self?.expire(id, Timeout(description: "timed out after \(timeout) waiting for \(count) signals"))
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { state -> Bool? in
                if state.count >= count { return true }
                if state.expired.remove(id) != nil { return false }
                state.waiters[id] = Waiter(target: count, continuation: continuation)
                return nil
            }
            switch outcome {
            case true?: continuation.resume()
            case false?: continuation.resume(throwing: Timeout(description: "timed out after \(timeout)"))
            case nil: break
            }
        }
    }

    private func expire(_ id: Int, _ error: Timeout) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.expired.insert(id)
                return nil
            }
            return waiter
        }
        waiter?.continuation.resume(throwing: error)
    }
}
