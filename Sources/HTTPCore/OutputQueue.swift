#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes waiting to be written to one connection: an append-only arena for heads and dynamic bodies plus
/// references to stable cached bodies, flushed with one `sendmsg` (gather write) per call.
struct OutputQueue {
    enum Segment {
        case arena(start: Int, end: Int)
        case stable(ByteStorage, start: Int, end: Int)
    }

    private(set) var arena: [UInt8] = []
    private var segments: [Segment] = []
    private var first = 0
    private(set) var pendingBytes = 0

    var isEmpty: Bool { pendingBytes == 0 }

    init() {
        arena.reserveCapacity(4096)
        segments.reserveCapacity(8)
    }

    /// Appends bytes to the arena (extending the last arena segment when contiguous).
    mutating func append(_ bytes: some Collection<UInt8>) {
        let start = arena.count
        arena.append(contentsOf: bytes)
        extendArena(from: start)
    }

    mutating func append(_ string: String) {
        let start = arena.count
        ByteFormatting.append(string, to: &arena)
        extendArena(from: start)
    }

    mutating func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        let start = arena.count
        arena.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
        extendArena(from: start)
    }

    /// Appends a lower-case hexadecimal number.
    mutating func appendHex(_ value: Int) {
        let start = arena.count
        ByteFormatting.appendHex(value, to: &arena)
        extendArena(from: start)
    }

    /// Lets `write` append to the arena directly: one bookkeeping step for several appends.
    mutating func withArena(_ write: (inout [UInt8]) -> Void) {
        let start = arena.count
        write(&arena)
        extendArena(from: start)
    }

    /// Marks bytes appended directly to `arena` (via ``withArena(_:)``) as pending.
    private mutating func extendArena(from start: Int) {
        let end = arena.count
        guard end > start else { return }
        pendingBytes += end - start
        if segments.count > first, case .arena(let segmentStart, let segmentEnd) = segments[segments.count - 1],
            segmentEnd == start
        {
            segments[segments.count - 1] = .arena(start: segmentStart, end: end)
        } else {
            segments.append(.arena(start: start, end: end))
        }
    }

    /// Appends a reference to cached bytes (no copy).
    mutating func append(_ storage: ByteStorage) {
        guard storage.count > 0 else { return }
        if storage.count <= 512 {
            appendRaw(storage.pointer)
            return
        }
        segments.append(.stable(storage, start: 0, end: storage.count))
        pendingBytes += storage.count
    }

    /// Drops everything after the first `total` pending bytes (used by the truncate fault).
    mutating func truncate(toPending total: Int) {
        var excess = pendingBytes - total
        while excess > 0, segments.count > first {
            let last = segments.count - 1
            switch segments[last] {
            case .arena(let start, let end):
                let drop = min(excess, end - start)
                excess -= drop
                pendingBytes -= drop
                if drop == end - start {
                    segments.removeLast()
                } else {
                    segments[last] = .arena(start: start, end: end - drop)
                }
            case .stable(let storage, let start, let end):
                let drop = min(excess, end - start)
                excess -= drop
                pendingBytes -= drop
                if drop == end - start {
                    segments.removeLast()
                } else {
                    segments[last] = .stable(storage, start: start, end: end - drop)
                }
            }
        }
    }

    /// Moves all pending bytes into one array (used by the drip fault).
    mutating func drain() -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(pendingBytes)
        for index in first..<segments.count {
            switch segments[index] {
            case .arena(let start, let end): result.append(contentsOf: arena[start..<end])
            case .stable(let storage, let start, let end):
                result.append(contentsOf: UnsafeRawBufferPointer(rebasing: storage.pointer[start..<end]))
            }
        }
        reset()
        return result
    }

    private mutating func reset() {
        segments.removeAll(keepingCapacity: true)
        first = 0
        pendingBytes = 0
        if arena.capacity > 256 * 1024 {
            arena = []
            arena.reserveCapacity(4096)
        } else {
            arena.removeAll(keepingCapacity: true)
        }
    }

    /// Writes as much as the socket takes. Returns `true` when everything was written.
    /// Memory segments go out with one gather `sendmsg`; bodies backed by a memfd go out with `sendfile`
    /// (the preceding head is sent with `MSG_MORE` so both share packets).
    mutating func write(to fd: Int32, vectors: UnsafeMutablePointer<iovec>, capacity: Int) throws(SystemError) -> Bool {
        while pendingBytes > 0 {
            let result: IOResult
            if case .stable(let storage, let start, let end) = segments[first], storage.fileDescriptor >= 0 {
                var offset = off_t(start)
                result = try System.nonBlockingCall("sendfile") {
                    Platform.sendFromFile(fd, storage.fileDescriptor, &offset, end - start)
                }
            } else {
                let outcome = arena.withUnsafeBytes { (arenaBytes) -> Result<IOResult, SystemError> in
                    var count = 0
                    var index = first
                    var more = false
                    while index < segments.count && count < capacity {
                        switch segments[index] {
                        case .arena(let start, let end):
                            vectors[count] = iovec(
                                iov_base: UnsafeMutableRawPointer(mutating: arenaBytes.baseAddress! + start),
                                iov_len: end - start)
                        case .stable(let storage, let start, let end):
                            if storage.fileDescriptor >= 0 {
                                more = true
                                break
                            }
                            vectors[count] = iovec(
                                iov_base: UnsafeMutableRawPointer(mutating: storage.pointer.baseAddress! + start),
                                iov_len: end - start)
                        }
                        if more { break }
                        count += 1
                        index += 1
                    }
                    var message = msghdr()
                    message.msg_iov = vectors
                    message.msg_iovlen = .init(count)
                    return Result { () throws(SystemError) -> IOResult in
                        try System.nonBlockingCall("sendmsg") { Platform.sendmsg(fd, &message, more: more) }
                    }
                }
                result = try outcome.get()
            }
            guard case .processed(let written) = result else { return false }
            consume(written)
        }
        reset()
        return true
    }

    /// Drops the first `written` pending bytes (a write took them).
    private mutating func consume(_ written: Int) {
        var written = written
        pendingBytes -= written
        while written > 0 {
            switch segments[first] {
            case .arena(let start, let end):
                if written >= end - start {
                    written -= end - start
                    first += 1
                } else {
                    segments[first] = .arena(start: start + written, end: end)
                    written = 0
                }
            case .stable(let storage, let start, let end):
                if written >= end - start {
                    written -= end - start
                    first += 1
                } else {
                    segments[first] = .stable(storage, start: start + written, end: end)
                    written = 0
                }
            }
        }
    }

    /// Writes as much as the TLS session takes, a record's worth of bytes copied into `scratch` per `SSL_write`
    /// (no `sendfile` under TLS: the bytes must be encrypted). Returns `true` when everything was written. A write
    /// that must be retried is retried with the same bytes (``TLSSession/retryLength``), as OpenSSL requires.
    mutating func write(tls session: TLSSession, scratch: UnsafeMutableRawBufferPointer) throws(SystemError) -> Bool {
        while pendingBytes > 0 {
            let limit = session.retryLength ?? min(scratch.count, pendingBytes)
            var count = 0
            var index = first
            arena.withUnsafeBytes { arenaBytes in
                while index < segments.count && count < limit {
                    let source: UnsafeRawBufferPointer
                    switch segments[index] {
                    case .arena(let start, let end): source = UnsafeRawBufferPointer(rebasing: arenaBytes[start..<end])
                    case .stable(let storage, let start, let end):
                        source = UnsafeRawBufferPointer(rebasing: storage.pointer[start..<end])
                    }
                    let taken = min(source.count, limit - count)
                    scratch.baseAddress!.advanced(by: count).copyMemory(from: source.baseAddress!, byteCount: taken)
                    count += taken
                    index += 1
                }
            }
            switch session.write(UnsafeRawBufferPointer(rebasing: scratch[0..<count])) {
            case .bytes(let written):
                session.retryLength = nil
                consume(written)
            case .wantRead, .wantWrite:
                session.retryLength = count
                return false
            case .closed, .failed:
                throw SystemError(function: "SSL_write", errno: EPIPE)
            }
        }
        reset()
        return true
    }
}

/// ASCII number formatting straight into byte buffers (response heads, log lines): no intermediate `String`.
public enum ByteFormatting {
    /// Appends the string's UTF-8 bytes in one copy (`append(contentsOf: string.utf8)` goes through the generic
    /// sequence path, byte by byte).
    @inlinable
    public static func append(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends `value` in decimal, at least `minimumDigits` digits (zero-padded); negative values print as 0.
    public static func appendDecimal(_ value: Int, minimumDigits: Int, to bytes: inout [UInt8]) {
        var digits = 1
        var limit = 10
        while digits < 19 && value >= limit {
            digits += 1
            limit &*= 10
        }
        for _ in digits..<max(digits, minimumDigits) { bytes.append(0x30) }
        appendDecimal(value, to: &bytes)
    }

    /// Appends `value` in decimal; negative values print as 0.
    public static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        guard value >= 10 else {
            bytes.append(0x30 + UInt8(max(value, 0)))
            return
        }
        var divisor = 10
        while divisor <= value / 10 { divisor &*= 10 }
        var remaining = value
        while divisor > 0 {
            bytes.append(0x30 + UInt8(truncatingIfNeeded: remaining / divisor))
            remaining %= divisor
            divisor /= 10
        }
    }

    /// Writes `value` as exactly `digits` lowercase hex digits at `start` (zero-padded; its low digits when it has
    /// more).
    @inlinable
    public static func writeHex(_ value: UInt64, digits: Int, to start: UnsafeMutablePointer<UInt8>) {
        if digits == 16 {
            // Eight digits at a time, without a branch per digit.
            UnsafeMutableRawPointer(start).storeBytes(
                of: hexDigits(UInt32(truncatingIfNeeded: value >> 32)), as: UInt64.self)
            UnsafeMutableRawPointer(start + 8).storeBytes(
                of: hexDigits(UInt32(truncatingIfNeeded: value)), as: UInt64.self)
            return
        }
        var value = value
        var index = digits
        while index > 0 {
            index &-= 1
            let digit = UInt8(truncatingIfNeeded: value) & 0xF
            start[index] = digit &+ (digit < 10 ? UInt8(ascii: "0") : UInt8(ascii: "a") &- 10)
            value >>= 4
        }
    }

    /// The eight lowercase hex digits of `value` as the bytes of a `UInt64` in memory order (most significant digit
    /// first): each nibble spread into its own byte, then `0`–`9` or `a`–`f` added to all eight at once.
    @inline(__always) @usableFromInline static func hexDigits(_ value: UInt32) -> UInt64 {
        var spread = UInt64(value)
        spread = (spread | (spread << 16)) & 0x0000_FFFF_0000_FFFF
        spread = (spread | (spread << 8)) & 0x00FF_00FF_00FF_00FF
        spread = (spread | (spread << 4)) & 0x0F0F_0F0F_0F0F_0F0F
        // Byte k holds nibble k (least significant first); a nibble above 9 gets `a` - `0` - 10 = 39 more.
        let letters = ((spread &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return (spread &+ 0x3030_3030_3030_3030 &+ letters &* 39).bigEndian
    }

    static func appendHex(_ value: Int, to bytes: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4 - 4
        if value == 0 {
            bytes.append(0x30)
            return
        }
        while shift >= 0 {
            bytes.append(hex.utf8Start[(value >> shift) & 0xF])
            shift -= 4
        }
    }
}
