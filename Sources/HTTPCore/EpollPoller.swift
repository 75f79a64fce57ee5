#if os(Linux)
    import CLinux
    import Glibc

    /// The Linux poller: one thread blocked in `epoll_wait` on the shared listener (`EPOLLEXCLUSIVE`), the loop's
    /// connections and a wake-up eventfd; level-triggered.
    // @unchecked Sendable: confined to the loop thread except `wake()`, a write to the eventfd.
    final class EpollPoller: EventPoller, @unchecked Sendable {
        private static let listenerToken = UInt64.max
        private static let wakeToken = UInt64.max - 1
        /// Set in the token of a foreign socket (libcurl's): connections' tokens are their bare descriptors.
        private static let foreignTag: UInt64 = 1 << 32

        private let epfd: Int32
        private let wakeFD: Int32
        private let listenFD: Int32
        private var listening = true
        private var foreign = EpollCurlSockets()

        init(listenFD: Int32) throws(SystemError) {
            self.listenFD = listenFD
            epfd = try System.call("epoll_create1") { Linux.epollCreate1(Linux.epollCloexec) }
            do {
                wakeFD = try System.call("eventfd") { Linux.eventfd(0, Linux.efdCloexec | Linux.efdNonblock) }
            } catch {
                System.close(epfd)
                throw error
            }
            do {
                try Self.control(epfd, Linux.epollCtlAdd, wakeFD, events: Linux.epollIn, data: Self.wakeToken)
                try Self.control(
                    epfd, Linux.epollCtlAdd, listenFD, events: Linux.epollIn | Linux.epollExclusive,
                    data: Self.listenerToken)
            } catch {
                // Every property is set: the eventfd is closed by `deinit`.
                System.close(epfd)
                throw error
            }
        }

        func start(_ loop: EventLoop) {
            Thread.start(name: "http-loop-\(loop.index)") { [self] in run(loop) }
        }

        private func run(_ loop: EventLoop) {
            // `sendfile` has no MSG_NOSIGNAL: block SIGPIPE on this thread so a vanished peer yields EPIPE instead of
            // killing the process. (A synchronous SIGPIPE is thread-directed, so this does not affect other threads.)
            var pipe = sigset_t()
            sigemptyset(&pipe)
            sigaddset(&pipe, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipe, nil)
            let capacity = 256
            let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
            defer { events.deallocate() }
            EventLoop.setCurrent(loop)
            defer { EventLoop.setCurrent(nil) }
            loop.tick()
            while true {
                let timeout = loop.nextTimeout().map { Int32(min(($0 + 999_999) / 1_000_000, 60_000)) } ?? -1
                let count: Int32
                do {
                    count = try System.call("epoll_wait") { Linux.epollWait(epfd, events, Int32(capacity), timeout) }
                } catch {
                    loop.logger.error("event loop \(loop.index): \(error)")
                    break
                }
                loop.tick()
                for eventIndex in 0..<Int(count) {
                    let mask = events[eventIndex].events
                    let token = events[eventIndex].data.u64
                    if token == Self.listenerToken {
                        loop.acceptConnections()
                    } else if token == Self.wakeToken {
                        var counter: UInt64 = 0
                        _ = try? System.read(wakeFD, &counter, 8)
                        loop.runTasks()
                    } else if token & Self.foreignTag != 0 {
                        let fd = Int32(truncatingIfNeeded: token)
                        guard foreign.deliver(fd, epfd: epfd) else { continue }
                        var readiness: Readiness = []
                        if mask & (Linux.epollIn | Linux.epollHup) != 0 { readiness.insert(.readable) }
                        if mask & Linux.epollOut != 0 { readiness.insert(.writable) }
                        if mask & Linux.epollErr != 0 { readiness.insert(.error) }
                        loop.foreignSocketReady(fd, readiness)
                    } else {
                        var readiness: Readiness = []
                        if mask & Linux.epollIn != 0 { readiness.insert(.readable) }
                        if mask & Linux.epollOut != 0 { readiness.insert(.writable) }
                        if mask & Linux.epollHup != 0 { readiness.insert(.hangup) }
                        if mask & Linux.epollErr != 0 { readiness.insert(.error) }
                        loop.connectionReady(fd: Int32(truncatingIfNeeded: token), readiness)
                    }
                }
                if loop.afterEvents() { break }
            }
            loop.finish()
        }

        func wake() {
            var one: UInt64 = 1
            _ = try? System.write(wakeFD, &one, 8)
        }

        func watchListener(_ watching: Bool) {
            guard watching != listening else { return }
            do {
                if watching {
                    try epollControl(
                        epfd, Linux.epollCtlAdd, listenFD, events: Linux.epollIn | Linux.epollExclusive,
                        data: Self.listenerToken)
                } else {
                    try epollControl(epfd, Linux.epollCtlDel, listenFD, events: 0, data: 0)
                }
                listening = watching
            } catch {
                // Not watched after all (e.g. the listener was shut down): nothing to undo.
            }
        }

        func releaseListener(_ released: @escaping () -> Void) {
            watchListener(false)
            released()
        }

        func add(_ connection: Connection) throws(SystemError) {
            let fd = connection.fd
            try epollControl(epfd, Linux.epollCtlAdd, fd, events: Linux.epollIn, data: UInt64(fd))
        }

        func setInterest(_ connection: Connection, _ interest: Readiness) {
            var events: UInt32 = 0
            if interest.contains(.readable) { events |= Linux.epollIn }
            if interest.contains(.writable) { events |= Linux.epollOut }
            do {
                try epollControl(
                    epfd, Linux.epollCtlMod, connection.fd, events: events, data: UInt64(connection.fd))
            } catch {
                connection.loop.logger.error("epoll_ctl mod: \(error)")
            }
        }

        func close(_ connection: Connection) {
            // Deregistered first: closing removes a socket from the epoll set only with its last descriptor, and a
            // child process forked by another thread (Foundation's Process, before its exec) may hold a copy for a
            // moment. Its registration would stay, keyed by this fd number, and report the dead socket's hang-up to
            // the next connection accepted on the number — which the loop would then close (a reset request).
            var event = Linux.makeEpollEvent(events: 0, data: 0)
            _ = Linux.epollCtl(epfd, Linux.epollCtlDel, connection.fd, &event)
            System.close(connection.fd)
        }

        func watchForeign(_ fd: Int32, _ interest: Readiness) {
            foreign.watch(fd, interest, epfd: epfd, token: Self.foreignTag | UInt64(UInt32(bitPattern: fd)))
        }

        func unwatchForeign(_ fd: Int32) {
            foreign.unwatch(fd)
        }

        func closeForeign(_ fd: Int32) {
            foreign.close(fd, epfd: epfd)
        }

        func stop() {
            System.close(epfd)
        }

        // The wake-up eventfd outlives the loop's end: `wake()` may still be called by a thread that saw the loop
        // running (``EventLoop/execute(_:)`` wakes outside its lock).
        deinit { System.close(wakeFD) }

        private static func control(
            _ epfd: Int32, _ operation: Int32, _ fd: Int32, events: UInt32, data: UInt64
        ) throws(SystemError) {
            var event = Linux.makeEpollEvent(events: events, data: data)
            _ = try System.call("epoll_ctl") { Linux.epollCtl(epfd, operation, fd, &event) }
        }

        private func epollControl(
            _ epfd: Int32, _ operation: Int32, _ fd: Int32, events: UInt32, data: UInt64
        ) throws(SystemError) {
            try Self.control(epfd, operation, fd, events: events, data: data)
        }
    }
#endif
