import Foundation

/// A thread of its own that runs blocking jobs (socket reads, process waits) one at a time, in order, and resumes
/// the awaiting task when each is done. The Swift concurrency pool has one thread per core (two here): a blocking
/// call on it starves every other task, so blocking work in tests runs here instead.
///
/// ```swift
/// let thread = BlockingThread(name: "client")
/// let bytes = try await thread.run { try readUntilEOF(fd) }   // the pool thread is free meanwhile
/// thread.finish()
/// ```
public final class BlockingThread: Sendable {
    private let queue = JobQueue()

    /// Starts the thread; it ends after ``finish()`` once the jobs queued before it ran.
    public init(name: String) {
        let queue = self.queue
        let thread = Thread { queue.drain() }
        thread.name = name
        thread.start()
    }

    deinit { queue.close() }

    /// Runs `job` on this thread after the jobs queued before it, suspending (not blocking) the caller.
    public func run<T: Sendable>(_ job: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let queued = queue.enqueue { continuation.resume(with: Result { try job() }) }
            if !queued { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Runs `job` on this thread without waiting for it (e.g. a final `close`).
    public func post(_ job: @escaping @Sendable () -> Void) { _ = queue.enqueue(job) }

    /// Lets the thread run the jobs already queued, then end.
    public func finish() { queue.close() }

    /// Runs `job` on a fresh thread that ends with it: for one-off blocking work such as waiting for a process.
    public static func run<T: Sendable>(_ name: String, _ job: @escaping @Sendable () throws -> T) async throws -> T {
        let thread = BlockingThread(name: name)
        defer { thread.finish() }
        return try await thread.run(job)
    }
}

/// The jobs of one ``BlockingThread``: a FIFO behind a condition variable.
// @unchecked Sendable: `jobs` and `closed` are only touched while holding `condition`.
private final class JobQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var closed = false

    func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    /// The thread's body: runs jobs until closed and empty.
    func drain() {
        while true {
            condition.lock()
            while jobs.isEmpty && !closed { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
