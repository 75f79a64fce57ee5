#if canImport(Glibc)
    import Glibc
#endif

/// Linux-only calls that the `Glibc` module does not export (they sit behind `_GNU_SOURCE` or in headers it
/// does not include), resolved once with `dlsym` and called through C function pointers (C calling convention).
enum Linux {
    typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    typealias Accept4 =
        @convention(c) (
            Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
        ) -> Int32
    typealias SchedGetAffinity = @convention(c) (Int32, Int, UnsafeMutableRawPointer?) -> Int32
    typealias SetThreadName = @convention(c) (pthread_t, UnsafePointer<CChar>?) -> Int32

    private static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let pointer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("HTTPCore needs \(name) (Linux)")
        }
        return unsafeBitCast(pointer, to: type)
    }

    static let epollCreate1 = symbol("epoll_create1", as: EpollCreate1.self)
    static let epollCtl = symbol("epoll_ctl", as: EpollCtl.self)
    static let epollWait = symbol("epoll_wait", as: EpollWait.self)
    static let eventfd = symbol("eventfd", as: EventFD.self)
    static let accept4 = symbol("accept4", as: Accept4.self)
    static let schedGetAffinity = symbol("sched_getaffinity", as: SchedGetAffinity.self)
    static let setThreadName = symbol("pthread_setname_np", as: SetThreadName.self)

    // <sys/epoll.h>, <sys/eventfd.h>
    static let epollIn: UInt32 = 0x001
    static let epollOut: UInt32 = 0x004
    static let epollErr: UInt32 = 0x008
    static let epollHup: UInt32 = 0x010
    static let epollExclusive: UInt32 = 1 << 28
    static let epollCtlAdd: Int32 = 1
    static let epollCtlDel: Int32 = 2
    static let epollCtlMod: Int32 = 3
    static let epollCloexec: Int32 = 0o2000000
    static let efdCloexec: Int32 = 0o2000000
    static let efdNonblock: Int32 = 0o4000

    /// `struct epoll_event` is packed (12 bytes) on x86-64 and naturally aligned (16 bytes) elsewhere.
    #if arch(x86_64)
        static let epollEventSize = 12
        static let epollDataOffset = 4
    #else
        static let epollEventSize = 16
        static let epollDataOffset = 8
    #endif

    /// Reads event `index` of an `epoll_event` array: (events, data).
    @inline(__always)
    static func epollEvent(_ base: UnsafeMutableRawPointer, _ index: Int) -> (UInt32, UInt64) {
        let event = base + index * epollEventSize
        return (
            event.loadUnaligned(as: UInt32.self), event.loadUnaligned(fromByteOffset: epollDataOffset, as: UInt64.self)
        )
    }

    static func makeEpollEvent(events: UInt32, data: UInt64) -> (UInt64, UInt64) {
        var storage: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: data, toByteOffset: epollDataOffset, as: UInt64.self)
        }
        return storage
    }
}
