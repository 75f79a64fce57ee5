#if os(Linux)
    import Glibc

    /// libcurl's sockets in an epoll set, registered lazily. libcurl drops a pooled connection's socket from its
    /// interest after every transfer and asks for it again on the next one: two `epoll_ctl` calls per upstream call
    /// if followed literally. Here a dropped socket stays registered; an event that still arrives for it is not
    /// delivered and deregisters it then (a pooled connection the upstream closed: once). Asking again for what is
    /// registered costs no system call, and a socket libcurl closes leaves the set before it is closed.
    /// Used by the client's own epoll loop and by server loops that host a client (one per poller, on its thread).
    struct EpollCurlSockets {
        private struct Registration {
            var events: UInt32
            var wanted: Bool
        }

        private var registrations: [Int32: Registration] = [:]

        /// Reports `fd` for `interest` from now on, tagged `token` in the epoll set `epfd`.
        mutating func watch(_ fd: Int32, _ interest: Readiness, epfd: Int32, token: UInt64) {
            var events: UInt32 = 0
            if interest.contains(.readable) { events |= Linux.epollIn }
            if interest.contains(.writable) { events |= Linux.epollOut }
            if let registration = registrations[fd], registration.events == events {
                registrations[fd]?.wanted = true
                return
            }
            let operation = registrations[fd] == nil ? Linux.epollCtlAdd : Linux.epollCtlMod
            var event = Linux.makeEpollEvent(events: events, data: token)
            var result = Linux.epollCtl(epfd, operation, fd, &event)
            // The table and the kernel disagree when a descriptor was closed behind libcurl's close-socket callback
            // and its number reused (a registration the kernel dropped), or the reverse: do what the kernel needs
            // rather than lose the socket's events.
            if result != 0, errno == ENOENT, operation == Linux.epollCtlMod {
                result = Linux.epollCtl(epfd, Linux.epollCtlAdd, fd, &event)
            } else if result != 0, errno == EEXIST, operation == Linux.epollCtlAdd {
                result = Linux.epollCtl(epfd, Linux.epollCtlMod, fd, &event)
            }
            registrations[fd] = result == 0 ? Registration(events: events, wanted: true) : nil
        }

        /// Stops reporting `fd`; it stays registered until an event arrives for it or libcurl asks for it again.
        mutating func unwatch(_ fd: Int32) {
            registrations[fd]?.wanted = false
        }

        /// Whether an event for `fd` goes to libcurl; a socket libcurl no longer wants is deregistered now.
        mutating func deliver(_ fd: Int32, epfd: Int32) -> Bool {
            guard let registration = registrations[fd] else { return false }
            if registration.wanted { return true }
            registrations[fd] = nil
            var event = Linux.makeEpollEvent(events: 0, data: 0)
            _ = Linux.epollCtl(epfd, Linux.epollCtlDel, fd, &event)
            return false
        }

        /// Closes `fd` (libcurl's close-socket callback), deregistered first: a child process forked meanwhile
        /// may hold a copy of the descriptor, and then closing would not take the socket out of the set (see the
        /// server's `EpollPoller.close`).
        mutating func close(_ fd: Int32, epfd: Int32) {
            if registrations.removeValue(forKey: fd) != nil {
                var event = Linux.makeEpollEvent(events: 0, data: 0)
                _ = Linux.epollCtl(epfd, Linux.epollCtlDel, fd, &event)
            }
            System.close(fd)
        }
    }
#endif
