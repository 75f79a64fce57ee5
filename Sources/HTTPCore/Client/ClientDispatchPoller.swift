import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The client's portable poller: a read and a write Dispatch source per libcurl socket and a timer source, all on
/// one serial queue. A socket libcurl closes is closed only in its sources' cancellation handlers, so its number
/// cannot be reused while Dispatch still watches it (the swift-corelibs-libdispatch#833 crash URLSession's libcurl
/// runs into, see ``DispatchPoller``).
// @unchecked Sendable: all state is confined to `queue`; `wake()` only enqueues.
final class ClientDispatchPoller: ClientPoller, @unchecked Sendable {
    private let queue: DispatchQueue
    private var timer: (any DispatchSourceTimer)?
    private var sockets: DispatchSocketTable
    private var loop: HTTPClientLoop?
    private var stopped = false
    /// The deadline the timer is armed for (monotonic nanoseconds), or `UInt64.max`.
    private var armedDeadline = UInt64.max

    init(name: String) {
        queue = DispatchQueue(label: name)
        sockets = DispatchSocketTable(queue: queue)
    }

    func start(_ loop: HTTPClientLoop) {
        self.loop = loop
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in
            armedDeadline = 0  // fired: whatever comes next is armed anew
            handle { _ in }
        }
        timer.schedule(deadline: .distantFuture)
        self.timer = timer
        timer.activate()
        queue.async { [self] in handle { _ in } }
    }

    private func handle(_ event: (HTTPClientLoop) -> Void) {
        guard !stopped, let loop else { return }
        loop.tick()
        event(loop)
        if loop.afterEvents() {
            stopped = true
            loop.finish()
            return
        }
        timerChanged()
    }

    func wake() {
        queue.async { [self] in handle { $0.runInbox() } }
    }

    func watch(_ fd: Int32, _ interest: Readiness) {
        sockets.watch(fd, interest) { [self] fd, readiness in handle { $0.socketReady(fd, readiness) } }
    }

    func unwatch(_ fd: Int32) {
        sockets.unwatch(fd)
    }

    func closeSocket(_ fd: Int32) {
        sockets.close(fd)
    }

    func timerChanged() {
        guard let timer, let loop else { return }
        let wait = loop.nextTimeout()
        let deadline = wait.map { loop.now &+ $0 } ?? UInt64.max
        // Most events leave libcurl's timer where it was: re-arm only when it moved by 100 µs or more.
        let difference = deadline > armedDeadline ? deadline - armedDeadline : armedDeadline - deadline
        guard difference >= 100_000 else { return }
        armedDeadline = deadline
        if let wait {
            timer.schedule(deadline: .now() + .nanoseconds(Int(min(wait, 60_000_000_000))), leeway: .microseconds(100))
        } else {
            timer.schedule(deadline: .distantFuture)
        }
    }

    func stop() {
        timer?.cancel()
        timer = nil
        sockets.closeAll()
        loop = nil
    }
}
