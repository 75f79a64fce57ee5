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
    /// Simulated requests so far: the index of each one's random draws.
    let counter = Atomic<UInt64>(0)
    let runtimeRules = Mutex<[FaultRule]>([])
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
}
