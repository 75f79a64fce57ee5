import CZlib
import Synchronization

/// gzip compression through the system zlib.
public enum Gzip {
    /// Compressors not in use, by level. A deflate stream allocates about 256 KiB of state: set up and torn down
    /// per call (a body composed per request), that was fresh pages to fault in every time.
    private static let idle = Mutex<[Int32: [GzipCompressor]]>([:])

    /// Compresses `bytes` into a gzip member at zlib `level` (1…9).
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        let compressor = idle.withLock { $0[level]?.popLast() } ?? GzipCompressor(level: level)
        let compressed = bytes.withUnsafeBytes { compressor.compress($0) }
        idle.withLock { idle in
            if idle[level, default: []].count < 8 { idle[level, default: []].append(compressor) }
        }
        return compressed
    }

    /// Decompresses a gzip member (used by tests and clients); `nil` on corrupt input.
    public static func decompress(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = bytes
        let ok = input.withUnsafeMutableBufferPointer { source -> Bool in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { target -> Int32 in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
                if status == Z_STREAM_END { return true }
                if status != Z_OK { return false }
                if stream.avail_in == 0 && stream.avail_out != 0 { return false }
            }
        }
        return ok ? output : nil
    }
}

/// A reusable deflate stream producing gzip members; one per event loop, or lent by ``Gzip`` to one caller at a
/// time (not thread-safe).
// @unchecked Sendable: used by one thread at a time (a loop's own, or taken out of Gzip's pool under its lock).
final class GzipCompressor: @unchecked Sendable {
    private var stream = z_stream()
    private let initialized: Bool

    init(level: Int32) {
        initialized =
            deflateInit2_(
                &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit {
        if initialized { deflateEnd(&stream) }
    }

    func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(initialized, "deflateInit2 failed")
        deflateReset(&stream)
        let bound = Int(deflateBound(&stream, uLong(input.count))) + 32
        return [UInt8](unsafeUninitializedCapacity: bound) { output, written in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = output.baseAddress
            stream.avail_out = uInt(bound)
            let status = deflate(&stream, Z_FINISH)
            precondition(status == Z_STREAM_END, "deflate did not finish within deflateBound")
            written = bound - Int(stream.avail_out)
        }
    }
}
