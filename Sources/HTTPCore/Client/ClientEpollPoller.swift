#if os(Linux)
    import CLinux
    import Glibc

    /// The client's Linux poller: one thread blocked in `epoll_wait` on libcurl's sockets and a wake-up eventfd,
    /// with libcurl's timer as the wait's timeout; level-triggered.
    // @unchecked Sendable: confined to its thread except `wake()`, a write to the eventfd.
    final class ClientEpollPoller: ClientPoller, @unchecked Sendable {
        private static let wakeToken = UInt64.max

        private let epfd: Int32
        private let wakeFD: Int32
        private var sockets = EpollCurlSockets()
        private let name: String

        init(name: String) throws(SystemError) {
            self.name = name
            epfd = try System.call("epoll_create1") { Linux.epollCreate1(Linux.epollCloexec) }
            do {
                wakeFD = try System.call("eventfd") { Linux.eventfd(0, Linux.efdCloexec | Linux.efdNonblock) }
            } catch {
                System.close(epfd)
                throw error
            }
            var event = Linux.makeEpollEvent(events: Linux.epollIn, data: Self.wakeToken)
            if Linux.epollCtl(epfd, Linux.epollCtlAdd, wakeFD, &event) != 0 {
                let code = errno
                // Every property is set: the eventfd is closed by `deinit`.
                System.close(epfd)
                throw SystemError(function: "epoll_ctl", errno: code)
            }
        }

        func start(_ loop: HTTPClientLoop) {
            Thread.start(name: name) { [self] in run(loop) }
        }

        private func run(_ loop: HTTPClientLoop) {
            let capacity = 128
            let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
            defer { events.deallocate() }
            loop.tick()
            while true {
                let timeout = loop.nextTimeout().map { Int32(min(($0 + 999_999) / 1_000_000, 60_000)) } ?? -1
                let count: Int32
                do {
                    count = try System.call("epoll_wait") { Linux.epollWait(epfd, events, Int32(capacity), timeout) }
                } catch {
                    break
                }
                loop.tick()
                for index in 0..<Int(count) {
                    let token = events[index].data.u64
                    if token == Self.wakeToken {
                        var counter: UInt64 = 0
                        _ = try? System.read(wakeFD, &counter, 8)
                        loop.runInbox()
                        continue
                    }
                    let fd = Int32(truncatingIfNeeded: token)
                    guard sockets.deliver(fd, epfd: epfd) else { continue }
                    let mask = events[index].events
                    var readiness: Readiness = []
                    if mask & (Linux.epollIn | Linux.epollHup) != 0 { readiness.insert(.readable) }
                    if mask & Linux.epollOut != 0 { readiness.insert(.writable) }
                    if mask & Linux.epollErr != 0 { readiness.insert(.error) }
                    loop.socketReady(fd, readiness)
                }
                if loop.afterEvents() { break }
            }
            loop.finish()
        }

        func wake() {
            var one: UInt64 = 1
            _ = try? System.write(wakeFD, &one, 8)
        }

        func watch(_ fd: Int32, _ interest: Readiness) {
            sockets.watch(fd, interest, epfd: epfd, token: UInt64(UInt32(bitPattern: fd)))
        }

        func unwatch(_ fd: Int32) {
            sockets.unwatch(fd)
        }

        func closeSocket(_ fd: Int32) {
            sockets.close(fd, epfd: epfd)
        }

        func timerChanged() {
            // The thread reads the deadline before each wait; the timer only moves on this thread.
        }

        func stop() {
            System.close(epfd)
        }

        // The wake-up eventfd outlives the loop's end: `wake()` may still be called by a thread that saw the loop
        // running (``HTTPClientLoop/submit(_:)`` wakes outside its lock).
        deinit { System.close(wakeFD) }
    }
#endif
