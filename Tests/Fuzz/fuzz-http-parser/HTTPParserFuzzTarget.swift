import FuzzSupport
import HTTPCore

/// libFuzzer target for the incremental HTTP/1.1 request parser (``HTTPParser``).
///
/// Input: one selector byte, then raw bytes as a client would send them. The selector picks the limits (the
/// defaults, or small ones so the limit checks are reachable) and the size of the pieces the bytes arrive in.
/// Properties checked on every input, besides "never traps, never overflows":
/// - fed in pieces, the parser produces the same requests as fed all at once, and fails if and only if it does;
/// - every request respects the limits (body size, header count);
/// - each `next()` call makes progress: the number of events is bounded by the number of bytes;
/// - what HTTPCore reads from a parsed request (query items, `Accept-Encoding`, `If-None-Match`) never traps, and
///   looking up one query item agrees with listing them all.
enum HTTPParserFuzzTarget {
    static func run(_ buffer: UnsafeRawBufferPointer) {
        var input = FuzzInput(buffer)
        let selector = input.byte()
        let limits = selector & 0x80 == 0 ? HTTPParser.Limits() : HTTPParseCheck.smallLimits
        let pieceSize = Int(selector & 0x0F) + 1
        let bytes = Array(input.rest)

        let whole = HTTPParseCheck.parse([bytes[...]], limits: limits)
        let pieces = stride(from: 0, to: bytes.count, by: pieceSize).map {
            bytes[$0..<min($0 + pieceSize, bytes.count)]
        }
        let split = HTTPParseCheck.parse(pieces, limits: limits)
        // Which error is reported may depend on arrival (a line over the limit is rejected before its end is seen,
        // where a complete one would fail on its bare LF first); whether the input fails may not.
        fuzzCheck(
            whole.requests == split.requests && (whole.errorCode == nil) == (split.errorCode == nil),
            "pieces of \(pieceSize) bytes parse differently: \(whole) vs \(split)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    HTTPParserFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FLOW_BFF_FUZZING
    @main
    enum Replay {
        static func main() { FuzzReplay.main(HTTPParserFuzzTarget.run) }
    }
#endif
