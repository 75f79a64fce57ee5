#if os(Linux)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library calls whose names, flags or availability differ between Linux (Glibc, plus the GNU extensions
/// and Linux calls of `CLinux`) and Darwin. The rest of HTTPCore — and the socket code of HTTPTesting and
/// BFFServer — calls these and stays free of `#if os(…)`; the epoll loop (`EpollPoller.swift`) and the `CLinux`
/// facade (`Linux.swift`) are the other two Linux-only files.
///
/// Darwin branches are written against the SDK's documented calls but have not been compiled here (no Apple SDK
/// on the Linux CI machine): see docs/platforms.md.
package enum Platform {
    // MARK: Calls whose module must be named (they share a name with a method of `System`)

    package static func read(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if os(Linux)
            Glibc.read(fd, pointer, count)
        #else
            Darwin.read(fd, pointer, count)
        #endif
    }

    /// Inode, size and modification time of the file at `path` (following links); `nil` when it cannot be read.
    static func fileStamp(
        _ path: String
    ) -> (inode: Int64, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if os(Linux)
            let modified = info.st_mtim
        #else
            let modified = info.st_mtimespec
        #endif
        return (Int64(info.st_ino), Int64(info.st_size), Int64(modified.tv_sec), Int64(modified.tv_nsec))
    }

    /// The soft limit on open descriptors (`RLIMIT_NOFILE`), or 1024 when it cannot be read.
    static func descriptorLimit() -> Int {
        var limit = rlimit()
        #if os(Linux)
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        #else
            guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return 1024 }
        #endif
        return Int(clamping: limit.rlim_cur)
    }

    package static func write(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if os(Linux)
            Glibc.write(fd, pointer, count)
        #else
            Darwin.write(fd, pointer, count)
        #endif
    }

    static func writev(_ fd: Int32, _ vectors: UnsafePointer<iovec>, _ count: Int32) -> Int {
        #if os(Linux)
            Glibc.writev(fd, vectors, count)
        #else
            Darwin.writev(fd, vectors, count)
        #endif
    }

    @discardableResult
    package static func close(_ fd: Int32) -> Int32 {
        #if os(Linux)
            Glibc.close(fd)
        #else
            Darwin.close(fd)
        #endif
    }

    static func shutdown(_ fd: Int32, _ how: Int32) -> Int32 {
        #if os(Linux)
            Glibc.shutdown(fd, how)
        #else
            Darwin.shutdown(fd, how)
        #endif
    }

    static func listen(_ fd: Int32, _ backlog: Int32) -> Int32 {
        #if os(Linux)
            Glibc.listen(fd, backlog)
        #else
            Darwin.listen(fd, backlog)
        #endif
    }

    package static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if os(Linux)
            Glibc.connect(fd, address, length)
        #else
            Darwin.connect(fd, address, length)
        #endif
    }

    /// `send` that never raises SIGPIPE: `MSG_NOSIGNAL` on Linux; on Darwin the socket has `SO_NOSIGPIPE`
    /// (set by ``socket(family:nonBlocking:)`` and ``accept(_:_:_:)``).
    package static func send(_ fd: Int32, _ pointer: UnsafeRawPointer?, _ count: Int, more: Bool = false) -> Int {
        #if os(Linux)
            Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0))
        #else
            Darwin.send(fd, pointer, count, 0)
        #endif
    }

    /// `sendmsg` that never raises SIGPIPE; `more` hints that more data follows at once (`MSG_MORE`, Linux only).
    static func sendmsg(_ fd: Int32, _ message: UnsafePointer<msghdr>, more: Bool) -> Int {
        #if os(Linux)
            Glibc.sendmsg(fd, message, Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0))
        #else
            Darwin.sendmsg(fd, message, 0)
        #endif
    }

    package static func signal(_ number: Int32, ignore: Bool) {
        #if os(Linux)
            _ = Glibc.signal(number, ignore ? SIG_IGN : SIG_DFL)
        #else
            _ = Darwin.signal(number, ignore ? SIG_IGN : SIG_DFL)
        #endif
    }

    // MARK: Sockets

    /// `SOCK_STREAM` as `socket(2)` and `getaddrinfo(3)` take it (an enum on Glibc, an `Int32` on Darwin).
    package static var streamType: Int32 {
        #if os(Linux)
            Int32(SOCK_STREAM.rawValue)
        #else
            SOCK_STREAM
        #endif
    }

    /// A close-on-exec TCP socket, non-blocking when asked, that never raises SIGPIPE.
    package static func socket(family: Int32, nonBlocking: Bool) -> Int32 {
        #if os(Linux)
            let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
            return Glibc.socket(family, streamType | flags, 0)
        #else
            let fd = Darwin.socket(family, streamType, 0)
            if fd >= 0 { configure(fd, nonBlocking: nonBlocking) }
            return fd
        #endif
    }

    /// Accepts a pending connection as a non-blocking, close-on-exec socket (`accept4` on Linux).
    static func accept(
        _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?
    ) -> Int32 {
        #if os(Linux)
            Linux.accept4(fd, address, length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        #else
            let client = Darwin.accept(fd, address, length)
            if client >= 0 { configure(client, nonBlocking: true) }
            return client
        #endif
    }

    #if !os(Linux)
        private static func configure(_ fd: Int32, nonBlocking: Bool) {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    #endif

    // MARK: Zero-copy bodies

    /// An anonymous in-memory file for `sendfile`, or -1 where there is none (Darwin: bodies go out with `sendmsg`).
    static func memoryFile(_ name: String) -> Int32 {
        #if os(Linux)
            Linux.memfdCreate(name)
        #else
            -1
        #endif
    }

    /// `sendfile(2)` from a memory file made by ``memoryFile(_:)``; never called where that returns -1.
    static func sendFromFile(_ out: Int32, _ input: Int32, _ offset: inout off_t, _ count: Int) -> Int {
        #if os(Linux)
            Linux.sendfile(out, input, &offset, count)
        #else
            errno = ENOSYS
            return -1
        #endif
    }

    // MARK: Threads and CPUs

    /// CPUs this process may run on (its affinity mask on Linux), at least 1.
    package static var availableCPUs: Int {
        #if os(Linux)
            let count = Linux.availableCPUs
            if count > 0 { return count }
        #endif
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Caps the C allocator's arenas at `count` (glibc `mallopt(M_ARENA_MAX)`; call it before starting threads).
    /// glibc gives threads arenas of their own, up to eight per core, and memory freed in one is not reused by
    /// another. Nothing on other platforms.
    package static func limitAllocatorArenas(_ count: Int32) {
        #if os(Linux)
            Linux.limitMallocArenas(count)
        #endif
    }

    /// Serves C allocations of `bytes` or more with mappings of their own, returned to the system when freed (glibc
    /// `mallopt(M_MMAP_THRESHOLD)`; glibc otherwise raises its threshold up to 32 MiB as big blocks are freed, and
    /// growing arrays then leave holes in the heap). Nothing on other platforms.
    package static func mapAllocations(from bytes: Int32) {
        #if os(Linux)
            Linux.mallocMapThreshold(bytes)
        #endif
    }

    /// Hands the C allocator's free memory back to the system (glibc `malloc_trim(0)`), e.g. once a big load's
    /// intermediates are gone. Nothing on other platforms.
    package static func releaseFreeMemory() {
        #if os(Linux)
            Linux.mallocTrim()
        #endif
    }

    /// Names the calling thread (first 15 bytes on Linux).
    static func setThreadName(_ name: String) {
        #if os(Linux)
            Linux.setThreadName(name)
        #else
            _ = pthread_setname_np(name)
        #endif
    }
}
