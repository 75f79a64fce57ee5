/// A wait in a test ran out of time.
struct TestTimeout: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Runs `operation`, failing with ``TestTimeout`` after `timeout`: every wait in these tests is bounded.
func bounded<T: Sendable>(
    _ what: String, timeout: Duration = .seconds(5), _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TestTimeout(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// Awaits `task`, bounded.
func finish<T: Sendable>(_ task: Task<T, Never>, _ what: String = "the task") async throws -> T {
    try await bounded(what) { await task.value }
}
