import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The portable poller: Dispatch read/write sources on the non-blocking sockets, all targeting one serial queue per
/// loop, and a timer source for the loop's deadlines. Every handler runs the same loop logic as the epoll thread
/// (`tick`, the event, `afterEvents`), so the two loops behave alike; only the wake-up and the waiting differ.
///
/// Dispatch owns a watched descriptor until its source is cancelled: sockets are closed in the cancellation
/// handler, never while a source may still use them, and suspended sources are resumed before they are cancelled
/// (a suspended source never runs its cancellation handler).
///
/// The sources watch a duplicate of each socket numbered in the upper half of the descriptor limit, not the socket's
/// own (low, quickly recycled) number. URLSession's libcurl closes its sockets before their Dispatch sources finish
/// cancelling (swift-corelibs-foundation#4791); a source registered on the same number in that window shares the
/// closing one's epoll registration (swift-corelibs-libdispatch#833) and crashes the Dispatch manager thread, which
/// the test suite, where servers and URLSession clients share a process, met in about one run in five. The
/// duplicates cost at most a sixteenth of the descriptor limit: past that many connections, sources watch the
/// sockets themselves.
// @unchecked Sendable: all state is confined to `queue`; `wake()` only enqueues.
final class DispatchPoller: EventPoller, @unchecked Sendable {
    private let queue: DispatchQueue
    private let listenFD: Int32
    private var listener: (any DispatchSourceRead)?
    private var listening = false
    private var timer: (any DispatchSourceTimer)?
    /// The deadline the timer is armed for (monotonic nanoseconds), or `UInt64.max`.
    private var armedDeadline = UInt64.max
    private var sources: [Int32: DispatchSocketSources] = [:]
    /// Sockets of the loop's hosted HTTP clients (libcurl's).
    private var foreign: DispatchSocketTable
    /// The loop this poller drives; released by ``stop()`` (the loop owns the poller).
    private var loop: EventLoop?
    private var stopped = false

    /// Where watched duplicates are numbered from: half the soft descriptor limit.
    private let watchedBase: Int32

    init(listenFD: Int32, index: Int) {
        self.listenFD = listenFD
        watchedBase = Int32(clamping: Platform.descriptorLimit() / 2)
        queue = DispatchQueue(label: "http-loop-\(index)")
        foreign = DispatchSocketTable(queue: queue)
    }

    func start(_ loop: EventLoop) {
        // Dispatch runs handlers on shared worker threads, where SIGPIPE cannot be blocked per thread; `sendfile` and
        // `writev` to a vanished peer must yield EPIPE instead of killing the process.
        Platform.signal(SIGPIPE, ignore: true)
        self.loop = loop
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in handle { _ in } }
        self.timer = timer
        timer.activate()
        let listener = DispatchSource.makeReadSource(fileDescriptor: listenFD, queue: queue)
        listener.setEventHandler { [self] in handle { $0.acceptConnections() } }
        self.listener = listener
        listening = true
        listener.activate()
        queue.async { [self] in handle { _ in } }
    }

    /// Runs one event the way the epoll thread does, then re-arms the timer or finishes the loop.
    private func handle(_ event: (EventLoop) -> Void) {
        guard !stopped, let loop else { return }
        EventLoop.setCurrent(loop)
        defer { EventLoop.setCurrent(nil) }
        loop.tick()
        event(loop)
        if loop.afterEvents() {
            stopped = true
            loop.finish()
            return
        }
        // Work the event handed over on the loop that is still waiting runs in a round of its own, like the epoll
        // thread's zero wait (that round arms the timer).
        if loop.hasLocalWork {
            queue.async { [self] in handle { _ in } }
            return
        }
        arm(loop.nextTimeout(), now: loop.now)
    }

    private func arm(_ timeout: UInt64?, now: UInt64) {
        guard let timer else { return }
        let deadline = timeout.map { now &+ $0 } ?? UInt64.max
        // Re-arm only when the deadline moves by a millisecond or more: most events leave it where it was.
        let difference = deadline > armedDeadline ? deadline - armedDeadline : armedDeadline - deadline
        guard difference >= 1_000_000 else { return }
        armedDeadline = deadline
        if let timeout {
            timer.schedule(deadline: .now() + .nanoseconds(Int(min(timeout, 60_000_000_000))), leeway: .milliseconds(1))
        } else {
            timer.schedule(deadline: .distantFuture)
        }
    }

    func wake() {
        queue.async { [self] in handle { $0.runTasks() } }
    }

    func watchListener(_ watching: Bool) {
        guard let listener, watching != listening else { return }
        listening = watching
        if watching { listener.resume() } else { listener.suspend() }
    }

    func releaseListener(_ released: @escaping () -> Void) {
        guard let listener else {
            released()
            return
        }
        self.listener = nil
        listener.setCancelHandler(handler: released)
        if !listening { listener.resume() }
        listening = false
        listener.cancel()
    }

    func add(_ connection: Connection) throws(SystemError) {
        let fd = connection.fd
        // A duplicate in the upper range (see the type's comment) for at most a sixteenth of the descriptor limit
        // in connections; past that, the socket itself.
        let duplicate = sources.count < Int(watchedBase) / 8 ? fcntl(fd, F_DUPFD_CLOEXEC, max(watchedBase, fd + 1)) : -1
        let entry = DispatchSocketSources(
            fd: fd, watched: duplicate >= 0 ? duplicate : fd, queue: queue,
            readable: { [self] in handle { $0.connectionReady(connection, .readable) } },
            writable: { [self] in handle { $0.connectionReady(connection, .writable) } })
        sources[fd] = entry
        entry.set(reading: true, writing: false)
    }

    func setInterest(_ connection: Connection, _ interest: Readiness) {
        sources[connection.fd]?.set(reading: interest.contains(.readable), writing: interest.contains(.writable))
    }

    func close(_ connection: Connection) {
        guard let entry = sources.removeValue(forKey: connection.fd) else {
            System.close(connection.fd)
            return
        }
        entry.cancel()
    }

    func watchForeign(_ fd: Int32, _ interest: Readiness) {
        foreign.watch(fd, interest) { [self] fd, readiness in handle { $0.foreignSocketReady(fd, readiness) } }
    }

    func unwatchForeign(_ fd: Int32) {
        foreign.unwatch(fd)
    }

    func closeForeign(_ fd: Int32) {
        foreign.close(fd)
    }

    func stop() {
        timer?.cancel()
        timer = nil
        foreign.closeAll()
        if let listener {
            if !listening { listener.resume() }
            listener.cancel()
            self.listener = nil
        }
        loop = nil
    }
}
