/// Keeps process launches and descriptor-heavy tests apart. Foundation's `Process.run()` on Linux crashed here
/// (a `memmove` past its buffer inside `run()`, seen twice in about 30 suite runs) while `SlowClientTests` held about
/// 1 000 sockets: launches take a shared hold, that test an exclusive one. Waiting suspends, never blocks.
///
/// ```swift
/// let run = try await ProcessLaunchGate.shared.launching { try await BlockingThread.run("tool") { … } }
/// try await ProcessLaunchGate.shared.holdingManyDescriptors { … open 500 connections … }
/// ```
public actor ProcessLaunchGate {
    public static let shared = ProcessLaunchGate()

    private var launches = 0
    private var heavy = false
    private var waiting: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// Runs `body` (which launches processes) when no descriptor-heavy test is running.
    public nonisolated func launching<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire(exclusive: false)
        do {
            let result = try await body()
            await release(exclusive: false)
            return result
        } catch {
            await release(exclusive: false)
            throw error
        }
    }

    /// Runs `body` (which opens hundreds of descriptors) when no process launch is in progress.
    public nonisolated func holdingManyDescriptors<T: Sendable>(_ body: @Sendable () async throws -> T)
        async throws -> T
    {
        await acquire(exclusive: true)
        do {
            let result = try await body()
            await release(exclusive: true)
            return result
        } catch {
            await release(exclusive: true)
            throw error
        }
    }

    private func acquire(exclusive: Bool) async {
        if canEnter(exclusive: exclusive) && waiting.isEmpty {
            enter(exclusive: exclusive)
            return
        }
        await withCheckedContinuation { waiting.append((exclusive, $0)) }
    }

    private func release(exclusive: Bool) {
        if exclusive { heavy = false } else { launches -= 1 }
        // Admit waiters in order while they fit: a run of launches, or one exclusive holder.
        while let next = waiting.first, canEnter(exclusive: next.exclusive) {
            waiting.removeFirst()
            enter(exclusive: next.exclusive)
            next.continuation.resume()
        }
    }

    private func canEnter(exclusive: Bool) -> Bool { exclusive ? !heavy && launches == 0 : !heavy }

    private func enter(exclusive: Bool) {
        if exclusive { heavy = true } else { launches += 1 }
    }
}
