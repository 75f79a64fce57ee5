import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that may cross threads only to be used back on its owning event-loop thread.
// @unchecked Sendable: `value` is only dereferenced inside tasks that run on the loop thread owning it.
struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    let value: Value
}

/// One event loop: the shared listener, its connections, timers and the deadline sweep, driven by an
/// ``EventPoller`` — an epoll thread (Linux) or Dispatch sources on a serial queue
/// (``HTTPServer/Configuration/EventLoopKind``). Everything here runs on the loop (its thread or queue), one event
/// at a time: `tick()`, the event (`acceptConnections()`, `runTasks()`, `connectionReady`), `afterEvents()`.
// @unchecked Sendable: everything except `inbox` and the atomics is confined to the loop; other threads only call
// `execute(_:)`, which goes through the `inbox` Mutex.
final class EventLoop: @unchecked Sendable {
    private struct Inbox {
        var tasks: [@Sendable () -> Void] = []
        /// Swift task jobs enqueued from other threads (EventLoop+Executor.swift).
        var jobs: [UnownedJob] = []
        var wakePending = false
        var stopped = false
    }

    static let sweepInterval: UInt64 = 50_000_000
    /// Header timeout of a connection in a reserved slot (``HTTPServer/Configuration/Limits/reservedConnections``).
    static let reservedHeaderTimeout: UInt64 = 2_000_000_000

    let index: Int
    let server: HTTPServer
    let responder: any HTTPResponder
    let logger: any HTTPLogSink
    /// `logger.wantsAccessLog`, read once: asked per request, it would copy the existential each time.
    let wantsAccessLog: Bool
    let configuration: HTTPServer.Configuration
    let headerTimeout: UInt64
    let bodyTimeout: UInt64
    let idleTimeout: UInt64
    let writeTimeout: UInt64
    /// ``HTTPServer/Configuration/Timeouts/maximumConnectionAge`` in nanoseconds; `0` for none.
    let maximumAge: UInt64
    let serverLine: [UInt8]
    /// The server's TLS context; `nil` for cleartext.
    let tls: TLSContext?
    /// Where a TLS connection's output is gathered for one `SSL_write` (a TLS record's worth); empty without TLS.
    let tlsScratch: UnsafeMutableRawBufferPointer

    private let listenFD: Int32
    let poller: any EventPoller
    private let inbox = Mutex(Inbox())
    /// Work handed over on the loop itself (a task resumed by a socket event, a promise completed by a task on
    /// the loop): run after the current event, before the loop waits again, with no lock and no wake-up.
    // Read after every event: `@exclusivity(unchecked)` spares the runtime access check each read would cost
    // (the compiler cannot prove that jobs run by `runLocalWork` do not overlap them); confined to the loop thread,
    // and every access is a single read, swap or append.
    @exclusivity(unchecked) var localTasks: [() -> Void] = []
    @exclusivity(unchecked) var localJobs: [UnownedJob] = []
    /// Client loops hosted here (EventLoop+Clients.swift), by ``HTTPClient`` id, and the sockets they watch.
    var clientLoops: [Int: HTTPClientLoop] = [:]
    @exclusivity(unchecked) var hostedClients: [HTTPClientLoop] = []
    var foreignSockets: [Int32: HTTPClientLoop] = [:]

    // Loop state.
    private var connections: [Connection?] = []
    private(set) var connectionCount = 0
    private(set) var now: UInt64 = System.monotonicNanoseconds()
    var date = HTTPDateCache()
    let compressor: GzipCompressor
    let readBuffer: UnsafeMutableRawBufferPointer
    let vectors: UnsafeMutablePointer<iovec>
    let vectorCapacity = 64
    private var timers: [(deadline: UInt64, action: () -> Void)] = []
    private var nextSweep: UInt64 = 0
    private(set) var draining = false
    /// The server's shutdown grace period: still accepting and serving, each response ends its connection.
    private(set) var inGracePeriod = false
    /// Whether a response may keep its connection open: not during a shutdown's grace period or drain.
    var keepsConnections: Bool { !draining && !inGracePeriod }
    private var drainDeadline: UInt64 = 0
    private var listening = true
    private var listenerReleased = false

    // Counters readable from any thread.
    let accepted = Atomic<Int>(0)
    let served = Atomic<Int>(0)

    init(
        index: Int, server: HTTPServer, responder: any HTTPResponder, listenFD: Int32, tls: TLSContext? = nil
    ) throws(SystemError) {
        self.index = index
        self.server = server
        self.responder = responder
        self.logger = server.logger
        self.wantsAccessLog = server.logger.wantsAccessLog
        self.configuration = server.configuration
        self.listenFD = listenFD
        let timeouts = configuration.timeouts
        headerTimeout = timeouts.headerRead.nanoseconds
        bodyTimeout = timeouts.bodyRead.nanoseconds
        idleTimeout = timeouts.idle.nanoseconds
        writeTimeout = timeouts.write.nanoseconds
        maximumAge = timeouts.maximumConnectionAge.map { max($0.nanoseconds, 1) } ?? 0
        serverLine = configuration.serverName.map { Array("Server: \($0)\r\n".utf8) } ?? []
        compressor = GzipCompressor(level: configuration.compression.level)
        poller = try configuration.eventLoop.makePoller(listenFD: listenFD, index: index)
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        vectors = .allocate(capacity: 64)
        self.tls = tls
        tlsScratch = .allocate(byteCount: tls == nil ? 0 : 16 * 1024, alignment: 16)
    }

    /// Starts delivering events (an epoll thread, or Dispatch sources).
    func start() {
        poller.start(self)
    }

    /// Runs `task` on the loop thread soon: after the current event when called on the loop, else through the
    /// inbox and a wake-up. Dropped when the loop has stopped.
    func execute(_ task: @escaping @Sendable () -> Void) {
        if isCurrent {
            localTasks.append(task)
            return
        }
        let wake = inbox.withLock { inbox -> Bool in
            guard !inbox.stopped else { return false }
            inbox.tasks.append(task)
            guard !inbox.wakePending else { return false }
            inbox.wakePending = true
            return true
        }
        // Outside the lock, so handing over does not queue threads behind a system call: the poller's wake-up
        // descriptor stays open until the poller is released, which the caller's reference to the loop prevents.
        if wake { poller.wake() }
    }

    /// Runs `action` on the loop thread after `delay` nanoseconds (loop thread only).
    func schedule(after delay: UInt64, _ action: @escaping () -> Void) {
        timers.append((now &+ delay, action))
    }

    // MARK: Events

    /// Reads the clock before an event.
    func tick() {
        now = System.monotonicNanoseconds()
        date.refresh()
    }

    /// How long the poller may wait for the next event, in nanoseconds; `nil` for no limit.
    func nextTimeout() -> UInt64? {
        if hasLocalWork { return 0 }
        var wait: UInt64 = UInt64.max
        if connectionCount > 0 || draining { wait = EventLoop.sweepInterval }
        for timer in timers { wait = min(wait, timer.deadline > now ? timer.deadline - now : 0) }
        if !hostedClients.isEmpty, let clients = hostedClientsTimeout() { wait = min(wait, clients) }
        return wait == UInt64.max ? nil : wait
    }

    /// Runs the tasks and jobs other threads handed to ``execute(_:)`` and ``enqueue(_:)``.
    func runTasks() {
        let (tasks, jobs) = inbox.withLock { inbox -> ([@Sendable () -> Void], [UnownedJob]) in
            inbox.wakePending = false
            let handed = (inbox.tasks, inbox.jobs)
            inbox.tasks.removeAll(keepingCapacity: true)
            inbox.jobs.removeAll(keepingCapacity: true)
            return handed
        }
        for task in tasks { task() }
        for job in jobs { run(job) }
    }

    /// Jobs enqueued after the loop stopped, for ``enqueue(_:)``: taken under the inbox lock so none is stranded.
    func acceptJob(_ job: UnownedJob) -> (accepted: Bool, wake: Bool) {
        inbox.withLock { inbox in
            guard !inbox.stopped else { return (false, false) }
            inbox.jobs.append(job)
            guard !inbox.wakePending else { return (true, false) }
            inbox.wakePending = true
            return (true, true)
        }
    }

    /// Makes the poller run ``runTasks()`` soon (any thread).
    func wake() { poller.wake() }

    /// A connection's socket is ready, by descriptor (epoll).
    func connectionReady(fd: Int32, _ readiness: Readiness) {
        let slot = Int(fd)
        if slot < connections.count, let connection = connections[slot] {
            connection.handle(readiness)
        }
    }

    /// A connection's socket is ready (Dispatch); ignored once the connection has been closed.
    func connectionReady(_ connection: Connection, _ readiness: Readiness) {
        let slot = Int(connection.fd)
        if slot < connections.count, connections[slot] === connection {
            connection.handle(readiness)
        }
    }

    /// Local work, timers, the deadline sweep and the drain after each batch of events; returns whether the loop
    /// is done.
    func afterEvents() -> Bool {
        // A few rounds of handed-over work and hosted clients' due timers (a transfer added by a task starts on a
        // 0 ms libcurl timer; an answer resumes a task) before the poller is asked again.
        for _ in 0..<4 {
            if hasLocalWork { runLocalWork() }
            if !hostedClients.isEmpty { runHostedClients() }
            if !hasLocalWork { break }
        }
        if !timers.isEmpty { runTimers() }
        if now >= nextSweep {
            nextSweep = now &+ EventLoop.sweepInterval
            sweep()
        }
        if draining {
            if now >= drainDeadline { closeAll() }
            if connectionCount == 0 { return true }
        }
        return false
    }

    private func runTimers() {
        var due: [() -> Void] = []
        timers.removeAll { timer in
            if timer.deadline <= now {
                due.append(timer.action)
                return true
            }
            return false
        }
        for action in due { action() }
    }

    private func sweep() {
        guard connectionCount > 0 else { return }
        for slot in connections.indices {
            if let connection = connections[slot] { connection.checkDeadline(now: now) }
        }
    }

    // MARK: Connections

    func acceptConnections() {
        guard listening else { return }
        // A changed certificate is picked up here, before the sessions of the connections about to be accepted are
        // made (a file check at most once per reload interval, for all loops).
        if let tls, let error = tls.check(now: now) {
            logger.error("\(error); new connections keep the last good certificate")
        }
        for _ in 0..<64 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let accepted: Int32?
            do {
                accepted = try withUnsafeMutablePointer(to: &storage) { (pointer) throws(SystemError) -> Int32? in
                    try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        (address) throws(SystemError) -> Int32? in
                        try System.accept(listenFD, address, &length)
                    }
                }
            } catch {
                switch error.errno {
                case ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    logger.error("accept: \(error); pausing accepts for 100 ms")
                    pauseListening(for: 100_000_000)
                default:
                    // EINVAL after the listener was shut down: stop watching it.
                    poller.watchListener(false)
                    listening = false
                }
                return
            }
            guard let fd = accepted else { return }
            let open = server.openConnections.add(1, ordering: .relaxed).newValue
            var reserved = false
            if open > configuration.limits.maxConnections {
                // Over the cap: a few reserved slots still read one request, so probes are answered under a flood.
                if open > configuration.limits.maxConnections + configuration.limits.reservedConnections
                    || configuration.limits.reservedPaths.isEmpty
                {
                    server.openConnections.subtract(1, ordering: .relaxed)
                    // Under TLS a cleartext 503 would be garbage to the client: the connection is just closed.
                    if tls == nil { Connection.rejectOverLimit(fd) } else { System.close(fd) }
                    continue
                }
                reserved = true
            }
            self.accepted.add(1, ordering: .relaxed)
            try? System.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1))
            let remote = SocketAddress.describe(&storage).0
            var session: TLSSession?
            if let tls {
                session = tls.makeSession(fd: fd)
                if session == nil {
                    logger.error("TLS: cannot make a session: \(TLSError.drainErrorQueue())")
                    server.openConnections.subtract(1, ordering: .relaxed)
                    System.close(fd)
                    continue
                }
            }
            let connection = Connection(fd: fd, loop: self, remoteAddress: remote, tls: session)
            if reserved {
                // A probe sends its request at once: a reserved slot is not held for the whole header timeout.
                connection.reserved = true
                connection.deadline = now &+ min(headerTimeout, EventLoop.reservedHeaderTimeout)
            }
            let slot = Int(fd)
            if slot >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: slot - connections.count + 64))
            }
            connections[slot] = connection
            connectionCount += 1
            do {
                try poller.add(connection)
            } catch {
                logger.error("watching a connection: \(error)")
                connection.close()
            }
        }
    }

    private func pauseListening(for nanoseconds: UInt64) {
        guard listening else { return }
        poller.watchListener(false)
        listening = false
        schedule(after: nanoseconds) { [self] in
            guard !draining, !listening, !listenerReleased else { return }
            poller.watchListener(true)
            listening = true
        }
    }

    /// Stops watching the listener for good and tells the server once this loop no longer uses it.
    private func releaseListener() {
        guard !listenerReleased else { return }
        listenerReleased = true
        listening = false
        poller.releaseListener { [server] in server.loopReleasedListener() }
    }

    /// Changes what the poller reports for a connection.
    func setInterest(_ connection: Connection, _ interest: Readiness) {
        poller.setInterest(connection, interest)
    }

    /// Forgets a closed connection and closes its socket (called by `Connection.close()`).
    func remove(_ connection: Connection) {
        let slot = Int(connection.fd)
        if slot < connections.count, connections[slot] === connection {
            connections[slot] = nil
            connectionCount -= 1
            server.openConnections.subtract(1, ordering: .relaxed)
        }
        poller.close(connection)
    }

    // MARK: Shutdown

    /// Keeps accepting and serving, but answers every request with `Connection: close` (loop thread). Idle
    /// keep-alive connections stay open: closing one now could cross a request its client is sending; it is ended
    /// after its next response, by the idle timeout, or by the drain.
    func beginGracePeriod() {
        inGracePeriod = true
    }

    /// Stops accepting, closes idle connections, lets busy ones finish until `deadline` (loop thread).
    func beginDrain(deadline: UInt64) {
        guard !draining else { return }
        draining = true
        drainDeadline = deadline
        releaseListener()
        for slot in connections.indices {
            if let connection = connections[slot], connection.isIdle { connection.close() }
        }
    }

    private func closeAll() {
        for slot in connections.indices {
            if let connection = connections[slot] { connection.close() }
        }
    }

    /// Ends the loop (called by the poller once ``afterEvents()`` says so, or when waiting failed).
    func finish() {
        closeAll()
        releaseListener()
        terminateHostedClients()
        let jobs = inbox.withLock { inbox -> [UnownedJob] in
            inbox.stopped = true
            inbox.tasks.removeAll()
            poller.stop()
            return inbox.jobs
        }
        // Tasks that were to continue here go on in the global executor: a job is never dropped.
        for job in jobs + localJobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        localJobs = []
        localTasks = []
        readBuffer.deallocate()
        vectors.deallocate()
        tlsScratch.deallocate()
        timers.removeAll()
        server.loopDidStop()
    }
}
