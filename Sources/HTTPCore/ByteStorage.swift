/// Immutable bytes at a stable address, so cached bodies can be handed to `writev` without copying.
// @unchecked Sendable: the memory is written once in `init` and only read afterwards; freed in `deinit`.
final class ByteStorage: @unchecked Sendable {
    let pointer: UnsafeRawBufferPointer

    init(_ bytes: [UInt8]) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { memory.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        }
        pointer = UnsafeRawBufferPointer(rebasing: memory[0..<bytes.count])
    }

    deinit {
        UnsafeMutableRawBufferPointer(mutating: pointer).deallocate()
    }

    var count: Int { pointer.count }
    var bytes: [UInt8] { Array(pointer) }
}
