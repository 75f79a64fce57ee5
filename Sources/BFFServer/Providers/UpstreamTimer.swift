import Synchronization

/// The time one request's Swift code (a page provider, an action handler) spent in upstream calls, summed over its
/// attempts (concurrent calls each count): the access log's `upstreamMs`. ``UpstreamClient`` adds to the timer of
/// the task it is called from (``current``), which ``CodeRegistry`` sets around the code it runs — child tasks
/// inherit it, so `async let` calls count too.
final class UpstreamTimer: Sendable {
    @TaskLocal static var current: UpstreamTimer?

    private let total = Atomic<UInt64>(0)

    /// Adds one attempt's duration.
    func add(seconds: Double) {
        total.add(UInt64(max(0, seconds) * 1e9), ordering: .relaxed)
    }

    /// The time so far, in nanoseconds.
    var nanoseconds: UInt64 { total.load(ordering: .relaxed) }
}
