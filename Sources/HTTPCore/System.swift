#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: the function name and the `errno` it left behind.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call that failed, e.g. `"bind"`.
    public var function: String
    /// The `errno` value reported by the call.
    public var errno: Int32

    public init(function: String, errno: Int32) {
        self.function = function
        self.errno = errno
    }

    public var description: String {
        "\(function) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Result of a non-blocking I/O call: bytes processed, or the call would block (`EAGAIN`).
enum IOResult: Equatable {
    case processed(Int)
    case wouldBlock
}

/// Every system call of HTTPCore goes through here: retries on `EINTR`, keeps `errno` in the thrown error.
enum System {
    /// Runs `body` until it does not fail with `EINTR`; a `-1` result throws a ``SystemError`` carrying `errno`.
    @inline(__always)
    static func call<T: FixedWidthInteger>(
        _ function: StaticString, _ body: () -> T
    ) throws(SystemError) -> T {
        while true {
            let result = body()
            if result == -1 {
                let code = errno
                if code == EINTR { continue }
                throw SystemError(function: "\(function)", errno: code)
            }
            return result
        }
    }

    /// Like ``call(_:_:)`` but maps `EAGAIN`/`EWOULDBLOCK` to ``IOResult/wouldBlock``.
    @inline(__always)
    static func nonBlockingCall(
        _ function: StaticString, _ body: () -> Int
    ) throws(SystemError) -> IOResult {
        while true {
            let result = body()
            if result == -1 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
                throw SystemError(function: "\(function)", errno: code)
            }
            return .processed(result)
        }
    }

    static func read(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) throws(SystemError) -> IOResult {
        try nonBlockingCall("read") { Platform.read(fd, pointer, count) }
    }

    static func writev(
        _ fd: Int32, _ vectors: UnsafePointer<iovec>, _ count: Int32
    ) throws(SystemError) -> IOResult {
        try nonBlockingCall("writev") { Platform.writev(fd, vectors, count) }
    }

    static func write(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) throws(SystemError) -> IOResult {
        try nonBlockingCall("write") { Platform.write(fd, pointer, count) }
    }

    /// A non-blocking, close-on-exec connection (`accept4` on Linux); `nil` when none is pending.
    static func accept(
        _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?
    ) throws(SystemError) -> Int32? {
        switch try nonBlockingCall("accept", { Int(Platform.accept(fd, address, length)) }) {
        case .processed(let client): return Int32(client)
        case .wouldBlock: return nil
        }
    }

    /// `close` is never retried on `EINTR` (Linux releases the descriptor anyway); errors are ignored.
    static func close(_ fd: Int32) {
        Platform.close(fd)
    }

    static func shutdown(_ fd: Int32, _ how: Int32) throws(SystemError) {
        _ = try call("shutdown") { Platform.shutdown(fd, how) }
    }

    static func setOption<T: BitwiseCopyable>(
        _ fd: Int32, _ level: Int32, _ name: Int32, _ value: T
    ) throws(SystemError) {
        var value = value
        _ = try call("setsockopt") {
            setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<T>.size))
        }
    }

    /// Monotonic clock in nanoseconds.
    @inline(__always)
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at zero for negative values.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
