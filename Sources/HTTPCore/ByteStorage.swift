#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Immutable bytes at a stable address, so cached bodies can be handed to `writev` without copying.
// @unchecked Sendable: the memory is written once in `init` and only read afterwards; freed in `deinit`.
final class ByteStorage: @unchecked Sendable {
    /// Bodies at least this large are also kept in a memfd and sent with `sendfile` (no copy into the socket).
    static let fileThreshold = 32 * 1024

    let pointer: UnsafeRawBufferPointer
    /// A sealed-in-practice memfd holding the same bytes, or -1.
    let fileDescriptor: Int32

    init(_ bytes: [UInt8]) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { memory.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        }
        pointer = UnsafeRawBufferPointer(rebasing: memory[0..<bytes.count])
        fileDescriptor = bytes.count >= ByteStorage.fileThreshold ? ByteStorage.makeMemFD(pointer) : -1
    }

    private static func makeMemFD(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        let fd = Platform.memoryFile("httpcore-body")
        guard fd >= 0 else { return -1 }
        var offset = 0
        while offset < bytes.count {
            guard
                let written = try? System.call(
                    "write", { Platform.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }),
                written > 0
            else {
                System.close(fd)
                return -1
            }
            offset += written
        }
        return fd
    }

    deinit {
        if fileDescriptor >= 0 { System.close(fileDescriptor) }
        UnsafeMutableRawBufferPointer(mutating: pointer).deallocate()
    }

    var count: Int { pointer.count }
    var bytes: [UInt8] { Array(pointer) }
}
