import CLinux
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A value that may cross threads only to be used back on its owning event-loop thread.
// @unchecked Sendable: `value` is only dereferenced inside tasks that run on the loop thread owning it.
struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    let value: Value
}

/// One event-loop thread: an epoll instance multiplexing the shared listener, its connections, a wake-up
/// eventfd and timers.
// @unchecked Sendable: everything except `inbox` and the atomics is confined to the loop thread; other threads
// only call `execute(_:)`, which goes through the `inbox` Mutex.
final class EventLoop: @unchecked Sendable {
    private struct Inbox {
        var tasks: [@Sendable () -> Void] = []
        var wakePending = false
        var stopped = false
    }

    private static let listenerToken = UInt64.max
    private static let wakeToken = UInt64.max - 1
    static let sweepInterval: UInt64 = 50_000_000

    let index: Int
    let server: HTTPServer
    let responder: any HTTPResponder
    let logger: any HTTPLogSink
    let configuration: HTTPServer.Configuration
    let headerTimeout: UInt64
    let bodyTimeout: UInt64
    let idleTimeout: UInt64
    let writeTimeout: UInt64
    let serverLine: [UInt8]

    private let epfd: Int32
    private let wakeFD: Int32
    private let listenFD: Int32
    private let inbox = Mutex(Inbox())

    // Loop-thread state.
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
    private var drainDeadline: UInt64 = 0
    private var listening = true

    // Counters readable from any thread.
    let accepted = Atomic<Int>(0)
    let served = Atomic<Int>(0)

    init(index: Int, server: HTTPServer, responder: any HTTPResponder, listenFD: Int32) throws(SystemError) {
        self.index = index
        self.server = server
        self.responder = responder
        self.logger = server.logger
        self.configuration = server.configuration
        self.listenFD = listenFD
        let timeouts = configuration.timeouts
        headerTimeout = timeouts.headerRead.nanoseconds
        bodyTimeout = timeouts.bodyRead.nanoseconds
        idleTimeout = timeouts.idle.nanoseconds
        writeTimeout = timeouts.write.nanoseconds
        serverLine = configuration.serverName.map { Array("Server: \($0)\r\n".utf8) } ?? []
        compressor = GzipCompressor(level: configuration.compression.level)
        epfd = try System.call("epoll_create1") { Linux.epollCreate1(Linux.epollCloexec) }
        do {
            wakeFD = try System.call("eventfd") { Linux.eventfd(0, Linux.efdCloexec | Linux.efdNonblock) }
        } catch {
            System.close(epfd)
            throw error
        }
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        vectors = .allocate(capacity: 64)
        do {
            try System.epollControl(epfd, Linux.epollCtlAdd, wakeFD, events: Linux.epollIn, data: EventLoop.wakeToken)
            try System.epollControl(
                epfd, Linux.epollCtlAdd, listenFD, events: Linux.epollIn | Linux.epollExclusive,
                data: EventLoop.listenerToken)
        } catch {
            System.close(wakeFD)
            System.close(epfd)
            readBuffer.deallocate()
            vectors.deallocate()
            throw error
        }
    }

    /// Runs `task` on the loop thread soon. Dropped when the loop has stopped.
    func execute(_ task: @escaping @Sendable () -> Void) {
        inbox.withLock { inbox in
            guard !inbox.stopped else { return }
            inbox.tasks.append(task)
            if !inbox.wakePending {
                inbox.wakePending = true
                var one: UInt64 = 1
                _ = try? System.write(wakeFD, &one, 8)
            }
        }
    }

    /// Runs `action` on the loop thread after `delay` nanoseconds (loop thread only).
    func schedule(after delay: UInt64, _ action: @escaping () -> Void) {
        timers.append((now &+ delay, action))
    }

    // MARK: Loop

    func run() {
        // `sendfile` has no MSG_NOSIGNAL: block SIGPIPE on this thread so a vanished peer yields EPIPE instead of
        // killing the process. (A synchronous SIGPIPE is thread-directed, so this does not affect other threads.)
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, nil)
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        date.refresh()
        while true {
            let timeout = computeTimeout()
            let count: Int32
            do {
                count = try System.call("epoll_wait") { Linux.epollWait(epfd, events, Int32(capacity), timeout) }
            } catch {
                logger.error("event loop \(index): \(error)")
                break
            }
            now = System.monotonicNanoseconds()
            date.refresh()
            for eventIndex in 0..<Int(count) {
                let eventMask = events[eventIndex].events
                let token = events[eventIndex].data.u64
                if token == EventLoop.listenerToken {
                    acceptConnections()
                } else if token == EventLoop.wakeToken {
                    runTasks()
                } else {
                    let fd = Int(truncatingIfNeeded: token)
                    if fd < connections.count, let connection = connections[fd] {
                        connection.handle(events: eventMask)
                    }
                }
            }
            if !timers.isEmpty { runTimers() }
            if now >= nextSweep {
                nextSweep = now &+ EventLoop.sweepInterval
                sweep()
            }
            if draining {
                if now >= drainDeadline { closeAll() }
                if connectionCount == 0 { break }
            }
        }
        shutdownLoop()
    }

    private func computeTimeout() -> Int32 {
        var wait: UInt64 = UInt64.max
        if connectionCount > 0 || draining { wait = EventLoop.sweepInterval }
        for timer in timers { wait = min(wait, timer.deadline > now ? timer.deadline - now : 0) }
        if wait == UInt64.max { return -1 }
        return Int32(min((wait + 999_999) / 1_000_000, 60_000))
    }

    private func runTasks() {
        var counter: UInt64 = 0
        _ = try? System.read(wakeFD, &counter, 8)
        let tasks = inbox.withLock { inbox -> [@Sendable () -> Void] in
            inbox.wakePending = false
            let tasks = inbox.tasks
            inbox.tasks.removeAll(keepingCapacity: true)
            return tasks
        }
        for task in tasks { task() }
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

    private func acceptConnections() {
        guard listening else { return }
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
                    stopListening()
                }
                return
            }
            guard let fd = accepted else { return }
            if server.openConnections.add(1, ordering: .relaxed).newValue > configuration.limits.maxConnections {
                server.openConnections.subtract(1, ordering: .relaxed)
                Connection.rejectOverLimit(fd)
                continue
            }
            self.accepted.add(1, ordering: .relaxed)
            try? System.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1))
            let remote = SocketAddress.describe(&storage).0
            let connection = Connection(fd: fd, loop: self, remoteAddress: remote)
            let slot = Int(fd)
            if slot >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: slot - connections.count + 64))
            }
            connections[slot] = connection
            connectionCount += 1
            do {
                try System.epollControl(epfd, Linux.epollCtlAdd, fd, events: Linux.epollIn, data: UInt64(fd))
            } catch {
                logger.error("epoll_ctl add: \(error)")
                connection.close()
            }
        }
    }

    private func pauseListening(for nanoseconds: UInt64) {
        guard listening else { return }
        _ = try? System.epollControl(epfd, Linux.epollCtlDel, listenFD, events: 0, data: 0)
        listening = false
        schedule(after: nanoseconds) { [self] in
            guard !draining, !listening else { return }
            if (try? System.epollControl(
                epfd, Linux.epollCtlAdd, listenFD, events: Linux.epollIn | Linux.epollExclusive,
                data: EventLoop.listenerToken)) != nil
            {
                listening = true
            }
        }
    }

    private func stopListening() {
        if listening {
            _ = try? System.epollControl(epfd, Linux.epollCtlDel, listenFD, events: 0, data: 0)
            listening = false
        }
    }

    /// Changes the epoll interest of a connection.
    func setInterest(_ fd: Int32, _ events: UInt32) {
        do {
            try System.epollControl(epfd, Linux.epollCtlMod, fd, events: events, data: UInt64(fd))
        } catch {
            logger.error("epoll_ctl mod: \(error)")
        }
    }

    /// Forgets a closed connection (called by `Connection.close()`).
    func remove(_ connection: Connection) {
        let slot = Int(connection.fd)
        if slot < connections.count, connections[slot] === connection {
            connections[slot] = nil
            connectionCount -= 1
            server.openConnections.subtract(1, ordering: .relaxed)
        }
    }

    // MARK: Shutdown

    /// Stops accepting, closes idle connections, lets busy ones finish until `deadline` (loop thread).
    func beginDrain(deadline: UInt64) {
        guard !draining else { return }
        draining = true
        drainDeadline = deadline
        stopListening()
        server.loopReleasedListener()
        for slot in connections.indices {
            if let connection = connections[slot], connection.isIdle { connection.close() }
        }
    }

    private func closeAll() {
        for slot in connections.indices {
            if let connection = connections[slot] { connection.close() }
        }
    }

    private func shutdownLoop() {
        closeAll()
        if !draining { server.loopReleasedListener() }
        inbox.withLock { inbox in
            inbox.stopped = true
            inbox.tasks.removeAll()
            System.close(wakeFD)
        }
        System.close(epfd)
        readBuffer.deallocate()
        vectors.deallocate()
        timers.removeAll()
        server.loopDidStop()
    }
}
