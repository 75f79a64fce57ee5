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
public final class HTTPServer: Sendable {
    public let configuration: Configuration
    /// What answers every request (a test can also send requests to it directly, without a socket).
    public let responder: any HTTPResponder
    let logger: any HTTPLogSink

    private enum Phase {
        case idle
        case running
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
            let (fd, port, address) = try SocketAddress.listen(
                host: configuration.host, port: configuration.port, backlog: configuration.backlog)
            var loops: [EventLoop] = []
            do {
                for index in 0..<max(1, configuration.workerThreads) {
                    loops.append(try EventLoop(index: index, server: self, responder: responder, listenFD: fd))
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
    public var isRunning: Bool { state.withLock { $0.phase == .running || $0.phase == .draining } }

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

    /// Graceful shutdown: new connections are refused as soon as this returns (on the Dispatch loop, once every loop
    /// has stopped watching the listener, moments later); idle keep-alive connections are
    /// closed; requests in flight are answered (with `Connection: close`) until `drainTimeout`
    /// (default ``Configuration/Timeouts/drain``), after which remaining connections are closed. Returns
    /// immediately; use ``waitUntilStopped()`` to wait for the end. Safe to call from any thread, repeatedly.
    public func shutdown(drainTimeout: Duration? = nil) {
        let timeout = (drainTimeout ?? configuration.timeouts.drain).nanoseconds
        let loops = state.withLock { (state) -> [EventLoop] in
            guard state.phase == .running else { return [] }
            state.phase = .draining
            // Refuse new connections now: a shut-down listening socket answers SYNs with RST. Not under Dispatch:
            // the hang-up this raises on the loops' listener sources races their cancellation in libdispatch's
            // event loop, which then dereferences a freed source (a crash seen in about one test run in eight);
            // there the listener is closed once every loop has cancelled its source, moments later.
            if configuration.eventLoop == .epoll { try? System.shutdown(state.listenFD, Int32(SHUT_RDWR)) }
            return state.loops
        }
        let deadline = System.monotonicNanoseconds() &+ timeout
        for loop in loops {
            loop.execute { loop.beginDrain(deadline: deadline) }
        }
    }

    /// Blocks the calling thread until every event loop has stopped (after ``shutdown(drainTimeout:)``).
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
            return waiters
        }
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
