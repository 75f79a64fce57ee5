import Dispatch
import Foundation
import HTTPCore
import PageModel
import Synchronization

/// Everything the mock backend remembers between requests. Exists only when `mock.enabled`; production
/// replicas have none of it.
final class MockState: Sendable {
    let configuration: BFFConfiguration.Mock
    let sessions: SessionStore
    let journal: RequestJournal
    let plan: FaultPlan
    /// Simulated requests without a session so far: the index of each one's random draws.
    let counter = Atomic<UInt64>(0)
    /// Simulated requests so far per session: each session draws from a sequence of its own, so parallel UI tests
    /// do not change each other's outcomes. At most `sessionCap` sessions; past it, every sequence restarts.
    let sessionDraws = Mutex<[String: UInt64]>([:])
    let runtimeRules = Mutex<[FaultRule]>([])
    /// Pages and action answers put at runtime (`/__admin/stubs`).
    let stubs = MockStubs()
    let timerQueue = DispatchQueue(label: "flow-bff.mock.latency", attributes: .concurrent)

    init(configuration: BFFConfiguration.Mock) {
        self.configuration = configuration
        let start = DispatchTime.now().uptimeNanoseconds
        sessions = SessionStore(
            capacity: configuration.sessionCap, idleSeconds: configuration.sessionIdleSeconds,
            clock: { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 })
        journal = RequestJournal(capacity: configuration.journalCapacity)
        plan = FaultPlan(seed: configuration.seed)
    }

    /// Where the next simulated request of `session` draws from: its index in the session's own sequence (or in
    /// the global one, without a session) and that sequence.
    func nextDraw(session: String?) -> (counter: UInt64, stream: UInt64) {
        guard let session else { return (counter.add(1, ordering: .relaxed).oldValue, 0) }
        let index = sessionDraws.withLock { draws in
            if draws[session] == nil, draws.count >= configuration.sessionCap { draws.removeAll(keepingCapacity: true) }
            let index = draws[session, default: 0]
            draws[session] = index + 1
            return index
        }
        return (index, FaultPlan.stream(of: session))
    }

    /// Forgets session `id`: its state and its simulation sequence (which restarts). Whether it existed.
    func forget(session id: String) -> Bool {
        sessionDraws.withLock { _ = $0.removeValue(forKey: id) }
        stubs.removeAll(session: id)
        return sessions.remove(id)
    }
}
