import HTTPTesting
import Synchronization
import Testing

@testable import BFFServer

/// The deadline thread of provider and handler runs: actions fire in deadline order, a cancelled one never fires
/// and lets go of what it captured at once (a cancelled deadline used to keep its whole answer alive until its time).
@Suite struct DeadlineTimerTests {
    final class Captured: Sendable {}

    @Test func deadlinesFireInOrderAndCancelledOnesNever() async throws {
        let fired = Mutex<[Int]>([])
        let signal = TestSignal()
        var tokens: [DeadlineTimer.Token] = []
        for (index, milliseconds) in [(0, 60), (1, 20), (2, 40), (3, 30)] {
            tokens.append(
                DeadlineTimer.shared.schedule(after: .milliseconds(milliseconds)) {
                    fired.withLock { $0.append(index) }
                    signal.signal()
                })
        }
        tokens[3].cancel()
        try await signal.wait(for: 3, timeout: .seconds(10))
        #expect(fired.withLock { $0 } == [1, 2, 0])
        // The cancelled one (due at 30 ms) had its chance long ago; a later one confirms the thread went on past it.
        try await confirmThreadRuns()
        #expect(fired.withLock { $0 } == [1, 2, 0])
    }

    @Test func aCancelledDeadlineReleasesItsAction() {
        weak var captured: Captured?
        let token: DeadlineTimer.Token
        do {
            let object = Captured()
            captured = object
            token = DeadlineTimer.shared.schedule(after: .seconds(3600)) { _ = object }
        }
        #expect(captured != nil, "held while scheduled")
        token.cancel()
        #expect(captured == nil, "released when cancelled, not an hour later")
    }

    /// An earlier deadline scheduled while the thread sleeps for a later one wakes it.
    @Test func anEarlierDeadlineWakesTheThread() async throws {
        let late = DeadlineTimer.shared.schedule(after: .seconds(3600)) {}
        defer { late.cancel() }
        try await confirmThreadRuns()
    }

    private func confirmThreadRuns() async throws {
        let ran = TestSignal()
        _ = DeadlineTimer.shared.schedule(after: .milliseconds(5)) { ran.signal() }
        try await ran.wait(for: 1, timeout: .seconds(10))
    }
}
