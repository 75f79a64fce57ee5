/// A one-shot value that any number of tasks can await with a time bound: the waiting primitive of
/// ``ScriptedPageLoader`` and ``ScriptedCall``. No polling; a waiter is resumed exactly once, by the value or
/// by its timeout.
final class BoundedSignal<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [Int: (continuation: CheckedContinuation<Value, any Error>, timer: Task<Void, Never>?)] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    init() {}

    /// The value, if fulfilled.
    var value: Value? { state.withLock { $0.value } }

    /// Stores `value` (the first one wins) and resumes every waiter.
    func fulfill(_ value: Value) {
        let waiters = state.withLock { state -> [(CheckedContinuation<Value, any Error>, Task<Void, Never>?)] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [:] }
            return state.waiters.values.map { ($0.continuation, $0.timer) }
        }
        for (continuation, timer) in waiters {
            timer?.cancel()
            continuation.resume(returning: value)
        }
    }

    /// The value once fulfilled; throws ``ScriptTimeout`` after `timeout`.
    func wait(timeout: Duration, _ what: @autoclosure () -> String) async throws -> Value {
        let description = what()
        return try await withCheckedThrowingContinuation { continuation in
            let id: Int? = state.withLock { state in
                if state.value != nil { return nil }
                let id = state.nextID
                state.nextID += 1
                state.waiters[id] = (continuation, nil)
                return id
            }
            guard let id else {
                continuation.resume(returning: state.withLock { $0.value! })
                return
            }
            let timer = Task { [weak self] in
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                self?.expire(id, ScriptTimeout(message: "timed out after \(timeout) waiting for \(description)"))
            }
            let stillWaiting = state.withLock { state in
                guard state.waiters[id] != nil else { return false }
                state.waiters[id]?.timer = timer
                return true
            }
            if !stillWaiting { timer.cancel() }
        }
    }

    private func expire(_ id: Int, _ error: ScriptTimeout) {
        let continuation = state.withLock { $0.waiters.removeValue(forKey: id)?.continuation }
        continuation?.resume(throwing: error)
    }
}

/// A bounded wait of the scripted loader ran out of time: the test's expectation did not happen.
public struct ScriptTimeout: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
