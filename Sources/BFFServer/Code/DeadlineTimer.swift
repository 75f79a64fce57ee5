import Foundation

/// Deadlines of provider and handler runs on one thread of its own: scheduling one is a lock and a heap push (no
/// task, no Dispatch timer), cancelling it a lock and a heap removal that also releases the action and what it
/// captured. The thread sleeps until the earliest deadline and is woken only when a new deadline is earlier than
/// the one it sleeps for — with one timeout per route, almost never; a cancelled deadline does not wake it, so a
/// busy server pays no thread wake-up per request.
final class DeadlineTimer: @unchecked Sendable {
    // @unchecked Sendable: `heap`, `sequence` and `sleep` are guarded by `condition`.

    /// One scheduled action.
    final class Token: @unchecked Sendable {
        // @unchecked Sendable: `index` and `action` are guarded by the timer's lock; the rest is immutable.
        fileprivate let deadline: ContinuousClock.Instant
        fileprivate let sequence: UInt64
        fileprivate unowned let timer: DeadlineTimer
        /// The token's place in the heap; -1 once it fired or was cancelled.
        fileprivate var index = -1
        fileprivate var action: (@Sendable () -> Void)?

        fileprivate init(
            _ deadline: ContinuousClock.Instant, _ sequence: UInt64, _ timer: DeadlineTimer,
            _ action: @escaping @Sendable () -> Void
        ) {
            self.deadline = deadline
            self.sequence = sequence
            self.timer = timer
            self.action = action
        }

        /// The action will not run (unless it is running already).
        func cancel() { timer.cancel(self) }

        fileprivate func precedes(_ other: Token) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    static let shared = DeadlineTimer()

    private let condition = NSCondition()
    private var heap: [Token] = []
    private var sequence: UInt64 = 0
    private enum Sleep {
        /// The thread runs and looks at the heap before it waits again.
        case running
        case untilSignalled
        case until(ContinuousClock.Instant)
    }

    private var sleep = Sleep.running

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "flow-bff-deadlines"
        thread.start()
    }

    /// Runs `action` on the timer thread after `delay`, unless the returned token is cancelled first. The action
    /// must return quickly (resume a continuation, cancel a task).
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        let deadline = ContinuousClock.now + delay
        condition.lock()
        sequence &+= 1
        let token = Token(deadline, sequence, self, action)
        push(token)
        let wake: Bool
        switch sleep {
        case .running: wake = false
        case .untilSignalled: wake = true
        case .until(let instant): wake = deadline < instant
        }
        if wake {
            sleep = .running
            condition.signal()
        }
        condition.unlock()
        return token
    }

    private func cancel(_ token: Token) {
        condition.lock()
        if token.index >= 0 { remove(at: token.index) }
        let action = token.action
        token.action = nil
        condition.unlock()
        _ = action  // released here, outside the lock
    }

    private func run() {
        condition.lock()
        while true {
            guard let first = heap.first else {
                sleep = .untilSignalled
                condition.wait()
                sleep = .running
                continue
            }
            let now = ContinuousClock.now
            if first.deadline > now {
                sleep = .until(first.deadline)
                _ = condition.wait(until: Date(timeIntervalSinceNow: (first.deadline - now).seconds))
                sleep = .running
                continue
            }
            remove(at: 0)
            let action = first.action
            first.action = nil
            condition.unlock()
            action?()
            condition.lock()
        }
    }

    // MARK: The heap (every move keeps each token's index)

    private func push(_ token: Token) {
        token.index = heap.count
        heap.append(token)
        siftUp(heap.count - 1)
    }

    private func remove(at index: Int) {
        let removed = heap[index]
        removed.index = -1
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        last.index = index
        siftDown(index)
        siftUp(index)
    }

    private func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        heap[a].index = a
        heap[b].index = b
    }

    private func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            guard smallest != parent else { return }
            swapAt(parent, smallest)
            parent = smallest
        }
    }
}
