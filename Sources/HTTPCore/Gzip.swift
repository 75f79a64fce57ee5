import CZlib

/// gzip compression through the system zlib.
public enum Gzip {
    /// Compresses `bytes` into a gzip member at zlib `level` (1…9).
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        let compressor = GzipCompressor(level: level)
        return bytes.withUnsafeBytes { compressor.compress($0) }
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

/// A reusable deflate stream producing gzip members; one per event loop (not thread-safe).
final class GzipCompressor {
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
