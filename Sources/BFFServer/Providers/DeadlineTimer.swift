import Foundation
import Synchronization

/// Deadlines of provider and handler runs on one thread of its own: scheduling one is a lock and a heap push
/// (no task, no Dispatch timer), cancelling it a flag. The thread sleeps until the earliest deadline and is woken
/// only when a new deadline is earlier than every pending one — with one timeout per route, almost never. A
/// cancelled deadline stays in the heap until its time and is then skipped.
final class DeadlineTimer: @unchecked Sendable {
    // @unchecked Sendable: `heap` and `sequence` are guarded by `condition`.
    final class Token: Sendable {
        fileprivate let cancelled = Atomic<Bool>(false)
        fileprivate let action: @Sendable () -> Void

        fileprivate init(_ action: @escaping @Sendable () -> Void) { self.action = action }

        /// The action will not run (unless it is running already).
        func cancel() { cancelled.store(true, ordering: .relaxed) }
    }

    private struct Entry {
        var deadline: ContinuousClock.Instant
        var sequence: UInt64
        var token: Token

        func precedes(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    static let shared = DeadlineTimer()

    private let condition = NSCondition()
    private var heap: [Entry] = []
    private var sequence: UInt64 = 0

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "flow-bff-deadlines"
        thread.start()
    }

    /// Runs `action` on the timer thread after `delay`, unless the returned token is cancelled first. The action
    /// must return quickly (resume a continuation, cancel a task).
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        let token = Token(action)
        let deadline = ContinuousClock.now + delay
        condition.lock()
        sequence &+= 1
        let earliest = heap.first.map { deadline < $0.deadline } ?? true
        push(Entry(deadline: deadline, sequence: sequence, token: token))
        if earliest { condition.signal() }
        condition.unlock()
        return token
    }

    private func run() {
        condition.lock()
        while true {
            guard let first = heap.first else {
                condition.wait()
                continue
            }
            let now = ContinuousClock.now
            if first.deadline > now {
                let wait = (first.deadline - now).seconds
                _ = condition.wait(until: Date(timeIntervalSinceNow: wait))
                continue
            }
            let due = pop()
            if due.token.cancelled.load(ordering: .relaxed) { continue }
            condition.unlock()
            due.token.action()
            condition.lock()
        }
    }

    private func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func pop() -> Entry {
        let first = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            guard smallest != parent else { return first }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
