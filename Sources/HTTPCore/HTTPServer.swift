import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A strict HTTP/1.1 server: one listening socket shared by ``Configuration/workerThreads`` event loops (epoll
/// threads or Dispatch queues, ``Configuration/eventLoop``).
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: router)
/// try server.start()
/// server.installSignalHandlers()      // SIGTERM / SIGINT → graceful shutdown
/// server.waitUntilStopped()           // then exit(0)
/// ```
///
/// Shutdown runs in up to two phases: an optional grace period (``shutdown(gracePeriod:drainTimeout:)``), in which
/// the server still accepts and serves but ends every connection after its next response, then the drain, in which
/// it refuses new connections and finishes the requests in flight.
public final class HTTPServer: Sendable {
    public let configuration: Configuration
    /// What answers every request (a test can also send requests to it directly, without a socket).
    public let responder: any HTTPResponder
    let logger: any HTTPLogSink

    private enum Phase {
        case idle
        case running
        /// Still accepting and serving, every response with `Connection: close`, until the drain begins.
        case grace
        case draining
        case stopped
    }

    private struct State {
        var phase = Phase.idle
        var loops: [EventLoop] = []
        var listenFD: Int32 = -1
        var port = 0
        var localAddress = ""
        var loopsHoldingListener = 0
        var loopsRunning = 0
        var signalSources: [SignalSource] = []
        /// The drain time the shutdown asked for, in nanoseconds (read when the drain begins).
        var drainTimeout: UInt64 = 0
        /// When the grace period ends (monotonic nanoseconds), and the token of the timer that ends it: a later,
        /// earlier deadline replaces the timer, whose stale firing then does nothing.
        var graceEnds: UInt64 = 0
        var graceTimer = 0
        /// ``onDrainStart(_:)`` actions not yet run.
        var drainActions: [@Sendable () -> Void] = []
        var stoppedWaiters: [CheckedContinuation<Void, Never>] = []
        /// Counters of loops that already stopped.
        var stoppedAccepted = 0
        var stoppedServed = 0
    }

    private let state = Mutex(State())
    private let stopped = DispatchGroup()
    let openConnections = Atomic<Int>(0)

    public init(
        configuration: Configuration = Configuration(), logger: any HTTPLogSink = HTTPNoopLogSink(),
        responder: some HTTPResponder
    ) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
    }

    /// A server answering with a closure.
    public convenience init(
        configuration: Configuration = Configuration(), logger: any HTTPLogSink = HTTPNoopLogSink(),
        handler: @escaping @Sendable (HTTPRequest) throws -> HTTPReply
    ) {
        self.init(configuration: configuration, logger: logger, responder: HTTPHandlerResponder(handler))
    }

    /// Binds, listens and starts the event-loop threads. Returns once the server accepts connections.
    /// Throws ``SystemError`` (e.g. `EADDRINUSE`) or when called twice.
    public func start() throws {
        try state.withLock { (state) throws -> Void in
            guard state.phase == .idle else {
                throw SystemError(function: "HTTPServer.start (already started)", errno: EINVAL)
            }
            // The certificate and key load before the port is bound: a bad file is an error at start, not a refused
            // handshake later.
            let tls = try configuration.tls.map { (tls) throws(TLSError) in try TLSContext(tls) }
            let (fd, port, address) = try SocketAddress.listen(
                host: configuration.host, port: configuration.port, backlog: configuration.backlog)
            var loops: [EventLoop] = []
            do {
                for index in 0..<max(1, configuration.workerThreads) {
                    loops.append(
                        try EventLoop(index: index, server: self, responder: responder, listenFD: fd, tls: tls))
                }
            } catch {
                System.close(fd)
                throw error
            }
            state.listenFD = fd
            state.port = port
            state.localAddress = address
            state.loops = loops
            state.loopsHoldingListener = loops.count
            state.loopsRunning = loops.count
            state.phase = .running
            for loop in loops {
                stopped.enter()
                loop.start()
            }
        }
    }

    /// The bound TCP port (useful with port 0); 0 before `start()`.
    public var port: Int { state.withLock { $0.port } }

    /// The bound address, e.g. `"127.0.0.1:8080"` or `"[::1]:8080"`.
    public var localAddress: String { state.withLock { $0.localAddress } }

    /// Whether the server has been started and not yet stopped.
    public var isRunning: Bool {
        state.withLock { $0.phase == .running || $0.phase == .grace || $0.phase == .draining }
    }

    /// Whether a shutdown's grace period runs: connections are still accepted and served, each ended after its next
    /// response.
    public var isInGracePeriod: Bool { state.withLock { $0.phase == .grace } }

    /// Counters since start.
    public struct Statistics: Sendable, Equatable {
        public var connectionsAccepted: Int
        public var openConnections: Int
        public var responsesSent: Int
    }

    public var statistics: Statistics {
        state.withLock { state in
            Statistics(
                connectionsAccepted: state.loops.reduce(state.stoppedAccepted) {
                    $0 + $1.accepted.load(ordering: .relaxed)
                },
                openConnections: openConnections.load(ordering: .relaxed),
                responsesSent: state.loops.reduce(state.stoppedServed) { $0 + $1.served.load(ordering: .relaxed) })
        }
    }

    /// Graceful shutdown, in two phases.
    ///
    /// 1. **Grace** (when `gracePeriod` is above zero): the server keeps accepting connections and serving requests
    ///    normally, except that every response carries `Connection: close` and ends its connection (idle keep-alive
    ///    connections are left open until they send a request or time out). Meant for a load balancer to see the
    ///    application's readiness fail and stop sending here while nothing is refused yet; a client on a
    ///    keep-alive connection (an L4 balancer pins it here) reconnects, and goes elsewhere.
    /// 2. **Drain**: new connections are refused (on the Dispatch loop, once every loop has stopped watching the
    ///    listener, moments later); idle keep-alive connections are closed; requests in flight are answered (with
    ///    `Connection: close`) until `drainTimeout` (default ``Configuration/Timeouts/drain``), after which
    ///    remaining connections are closed.
    ///
    /// Returns immediately; use ``waitUntilStopped()`` or ``stoppedAsync()`` to wait for the end. Safe to call from
    /// any thread, repeatedly: the drain begins at the earliest moment any call asked for, so
    /// `shutdown(gracePeriod: .zero)` during a grace period ends it at once (a second SIGTERM, see
    /// ``installSignalHandlers(_:gracePeriod:drainTimeout:onSignal:)``); a later call's `drainTimeout` replaces an
    /// earlier one until the drain begins.
    public func shutdown(gracePeriod: Duration = .zero, drainTimeout: Duration? = nil) {
        beginShutdown(drainTimeout: drainTimeout) { _ in gracePeriod }
    }

    /// The signal handlers' shutdown: the first signal starts the grace period, a later one ends it at once.
    func shutdownOnSignal(gracePeriod: Duration, drainTimeout: Duration?) {
        beginShutdown(drainTimeout: drainTimeout) { $0 == .running ? gracePeriod : .zero }
    }

    /// Runs `action` once, when the drain begins (on the thread that begins it, after the loops were told), or at
    /// once when the drain already began or the server stopped. For a log line, or to end long-lived responses
    /// (event streams) that would otherwise hold the drain to its deadline.
    public func onDrainStart(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { (state) -> Bool in
            guard state.phase == .draining || state.phase == .stopped else {
                state.drainActions.append(action)
                return false
            }
            return true
        }
        if runNow { action() }
    }

    private enum ShutdownStep {
        case none
        /// The loops start ending connections after each response; the timer ends the grace period after `delay`.
        case grace(loops: [EventLoop], timer: Int, delay: UInt64)
        /// A shorter grace period than the one running: only a new timer.
        case shortenGrace(timer: Int, delay: UInt64)
        case drain(loops: [EventLoop], timeout: UInt64, actions: [@Sendable () -> Void])
    }

    private func beginShutdown(drainTimeout: Duration?, gracePeriod: (Phase) -> Duration) {
        let now = System.monotonicNanoseconds()
        let step = state.withLock { (state) -> ShutdownStep in
            let grace = max(gracePeriod(state.phase), .zero).nanoseconds
            switch state.phase {
            case .running:
                state.drainTimeout = (drainTimeout ?? configuration.timeouts.drain).nanoseconds
                guard grace > 0 else { return startDrain(&state) }
                state.phase = .grace
                state.graceEnds = now &+ grace
                state.graceTimer += 1
                return .grace(loops: state.loops, timer: state.graceTimer, delay: grace)
            case .grace:
                if let drainTimeout { state.drainTimeout = drainTimeout.nanoseconds }
                guard grace > 0 else { return startDrain(&state) }
                guard now &+ grace < state.graceEnds else { return .none }
                state.graceEnds = now &+ grace
                state.graceTimer += 1
                return .shortenGrace(timer: state.graceTimer, delay: grace)
            case .idle, .draining, .stopped:
                return .none
            }
        }
        perform(step)
    }

    /// The grace period's timer fired: the drain begins unless a shorter period replaced this timer (or a call
    /// began the drain already).
    private func endGracePeriod(timer: Int) {
        let step = state.withLock { (state) -> ShutdownStep in
            guard state.phase == .grace, state.graceTimer == timer else { return .none }
            return startDrain(&state)
        }
        perform(step)
    }

    private func startDrain(_ state: inout State) -> ShutdownStep {
        state.phase = .draining
        // Refuse new connections now: a shut-down listening socket answers SYNs with RST. Not under Dispatch:
        // the hang-up this raises on the loops' listener sources races their cancellation in libdispatch's
        // event loop, which then dereferences a freed source (a crash seen in about one test run in eight);
        // there the listener is closed once every loop has cancelled its source, moments later.
        if configuration.eventLoop == .epoll { try? System.shutdown(state.listenFD, Int32(SHUT_RDWR)) }
        let actions = state.drainActions
        state.drainActions = []
        return .drain(loops: state.loops, timeout: state.drainTimeout, actions: actions)
    }

    private func perform(_ step: ShutdownStep) {
        switch step {
        case .none:
            return
        case .grace(let loops, let timer, let delay):
            for loop in loops {
                loop.execute { loop.beginGracePeriod() }
            }
            scheduleGraceEnd(timer: timer, delay: delay)
        case .shortenGrace(let timer, let delay):
            scheduleGraceEnd(timer: timer, delay: delay)
        case .drain(let loops, let timeout, let actions):
            let deadline = System.monotonicNanoseconds() &+ timeout
            for loop in loops {
                loop.execute { loop.beginDrain(deadline: deadline) }
            }
            for action in actions { action() }
        }
    }

    private func scheduleGraceEnd(timer: Int, delay: UInt64) {
        let nanoseconds = Int(min(delay, UInt64(Int.max / 2)))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.endGracePeriod(timer: timer)
        }
    }

    /// Blocks the calling thread until every event loop has stopped (after ``shutdown(gracePeriod:drainTimeout:)``).
    /// Returns immediately if the server was never started. For `main`; async code awaits ``stoppedAsync()``.
    @available(*, noasync, message: "blocks a thread of the concurrency pool; await stoppedAsync() instead")
    public func waitUntilStopped() {
        stopped.wait()
    }

    /// Like ``waitUntilStopped()`` but gives up after `timeout`; returns whether the server stopped.
    @available(*, noasync, message: "blocks a thread of the concurrency pool; await stoppedAsync() instead")
    public func waitUntilStopped(timeout: Duration) -> Bool {
        stopped.wait(timeout: .now() + .nanoseconds(Int(min(timeout.nanoseconds, UInt64(Int.max))))) == .success
    }

    /// Suspends until every event loop has stopped.
    public func stoppedAsync() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { (state) -> Bool in
                if state.phase == .stopped || state.phase == .idle { return true }
                state.stoppedWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    // MARK: Loop callbacks

    func loopReleasedListener() {
        state.withLock { state in
            state.loopsHoldingListener -= 1
            if state.loopsHoldingListener == 0 && state.listenFD >= 0 {
                System.close(state.listenFD)
                state.listenFD = -1
            }
        }
    }

    func loopDidStop() {
        var actions: [@Sendable () -> Void] = []
        let waiters = state.withLock { (state) -> [CheckedContinuation<Void, Never>] in
            state.loopsRunning -= 1
            guard state.loopsRunning == 0 else { return [] }
            state.phase = .stopped
            for loop in state.loops {
                state.stoppedAccepted += loop.accepted.load(ordering: .relaxed)
                state.stoppedServed += loop.served.load(ordering: .relaxed)
            }
            state.loops = []
            for source in state.signalSources { source.source.cancel() }
            state.signalSources = []
            let waiters = state.stoppedWaiters
            state.stoppedWaiters = []
            // Stopped without a drain (a loop whose poller failed): what waited for the drain runs now.
            actions = state.drainActions
            state.drainActions = []
            return waiters
        }
        for action in actions { action() }
        for waiter in waiters { waiter.resume() }
        stopped.leave()
    }

    func addSignalSource(_ source: SignalSource) -> Bool {
        state.withLock { state in
            guard state.phase == .running else { return false }
            state.signalSources.append(source)
            return true
        }
    }
}

/// A signal source kept by the server until it stops.
// @unchecked Sendable: libdispatch sources are thread-safe objects; the server only calls `cancel()` on them.
struct SignalSource: @unchecked Sendable {
    let source: any DispatchSourceSignal
}
