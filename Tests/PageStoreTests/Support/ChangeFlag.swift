import Observation
import Synchronization

/// Whether an Observation `onChange` fired; set from any thread.
final class ChangeFlag: Sendable {
    private let fired = Mutex(false)

    var hasFired: Bool { fired.withLock { $0 } }

    func fire() { fired.withLock { $0 = true } }
}

/// Runs `read` under `withObservationTracking` and returns a flag that turns true when anything it read changes.
@MainActor
func track(_ read: () -> Void) -> ChangeFlag {
    let flag = ChangeFlag()
    withObservationTracking(read, onChange: { flag.fire() })
    return flag
}
