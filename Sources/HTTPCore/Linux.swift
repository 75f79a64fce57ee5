#if os(Linux)
    import CLinux

    import Glibc

    /// The Linux calls HTTPCore uses beyond POSIX, through the `CLinux` C target (epoll, eventfd and sendfile from
    /// their headers; accept4, memfd_create, sched_getaffinity and pthread_setname_np compiled with `_GNU_SOURCE`).
    enum Linux {
        static func epollCreate1(_ flags: Int32) -> Int32 { epoll_create1(flags) }

        static func epollCtl(_ epfd: Int32, _ operation: Int32, _ fd: Int32, _ event: inout epoll_event) -> Int32 {
            epoll_ctl(epfd, operation, fd, &event)
        }

        static func epollWait(
            _ epfd: Int32, _ events: UnsafeMutablePointer<epoll_event>, _ capacity: Int32, _ timeout: Int32
        )
            -> Int32
        {
            epoll_wait(epfd, events, capacity, timeout)
        }

        static func eventfd(_ initial: UInt32, _ flags: Int32) -> Int32 { CLinux.eventfd(initial, flags) }

        static func accept4(
            _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?,
            _ flags: Int32
        ) -> Int32 {
            clinux_accept4(fd, address, length, flags)
        }

        static func sendfile(_ out: Int32, _ input: Int32, _ offset: UnsafeMutablePointer<off_t>?, _ count: Int) -> Int
        {
            CLinux.sendfile(out, input, offset, count)
        }

        /// An anonymous in-memory file (`MFD_CLOEXEC`).
        static func memfdCreate(_ name: String) -> Int32 { clinux_memfd_create(name) }

        /// CPUs this process may run on; 0 when unknown.
        static var availableCPUs: Int { Int(clinux_available_cpus()) }

        /// Names the calling thread (first 15 bytes).
        @discardableResult
        static func setThreadName(_ name: String) -> Int32 { clinux_set_thread_name(String(name.utf8.prefix(15))!) }

        /// Caps glibc malloc's arenas at `count` (`mallopt(M_ARENA_MAX)`).
        @discardableResult
        static func limitMallocArenas(_ count: Int32) -> Int32 { clinux_limit_malloc_arenas(count) }

        /// Serves glibc malloc requests of `bytes` or more with their own mappings (`mallopt(M_MMAP_THRESHOLD)`).
        @discardableResult
        static func mallocMapThreshold(_ bytes: Int32) -> Int32 { clinux_malloc_mmap_threshold(bytes) }

        /// Returns glibc malloc's free memory to the system (`malloc_trim(0)`).
        @discardableResult
        static func mallocTrim() -> Int32 { clinux_malloc_trim() }

        static let epollIn = CLINUX_EPOLLIN
        static let epollOut = CLINUX_EPOLLOUT
        static let epollErr = CLINUX_EPOLLERR
        static let epollHup = CLINUX_EPOLLHUP
        static let epollExclusive = CLINUX_EPOLLEXCLUSIVE
        static let epollCtlAdd = EPOLL_CTL_ADD
        static let epollCtlDel = EPOLL_CTL_DEL
        static let epollCtlMod = EPOLL_CTL_MOD
        static let epollCloexec = CLINUX_EPOLL_CLOEXEC
        static let efdCloexec = CLINUX_EFD_CLOEXEC
        static let efdNonblock = CLINUX_EFD_NONBLOCK

        /// An `epoll_event` carrying `data` as its 64-bit token.
        static func makeEpollEvent(events: UInt32, data: UInt64) -> epoll_event {
            epoll_event(events: events, data: epoll_data_t(u64: data))
        }
    }
#endif
