import BFFServer
import CCrypto
import FuzzSupport

/// libFuzzer target for the cursor codec (``CursorCodec``): verification and decoding of arbitrary postbacks.
///
/// Input: one selector byte, then
/// - even selector: the postback text exactly as a client would send it (signature checked first, so almost all
///   inputs stop at verification; the seeds are real signed cursors so the fuzzer starts past it);
/// - odd selector: a cursor *payload* that the target signs with the codec's key, so the fuzzer reaches the
///   base64url and JSON decoding of the payload that only a key holder can otherwise reach.
///
/// Properties: decoding never traps; a decoded cursor has a non-negative position and survives
/// `decode(encode(cursor))` unchanged.
enum CursorFuzzTarget {
    /// The key `scripts/fuzz-corpus` signs the seed postbacks with.
    static let key = "flow-bff-fuzz-cursor-key-0123456789abcdef"
    static let previousKey = "flow-bff-fuzz-previous-key-0123456789abcdef"
    static let codec = CursorCodec(key: key, previousKeys: [previousKey])

    static func run(_ buffer: UnsafeRawBufferPointer) {
        var input = FuzzInput(buffer)
        let selector = input.byte()
        let postback: String
        if selector & 1 == 0 {
            postback = input.restText
        } else {
            let payload = base64URL(Array(input.rest))
            let signingKey = selector & 2 == 0 ? key : previousKey
            postback = payload + "." + base64URL(hmacSHA256(key: Array(signingKey.utf8), message: Array(payload.utf8)))
        }
        guard let cursor = try? codec.decode(postback) else { return }
        fuzzCheck(cursor.position >= 0, "negative position in \(cursor)")
        let again = try? codec.decode(codec.encode(cursor))
        fuzzCheck(again == cursor, "\(cursor) does not survive encode/decode: \(String(describing: again))")
    }

    /// HMAC-SHA256 through libcrypto, as the server signs.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(key.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count, &output, &length)
            }
        }
        precondition(result != nil, "HMAC-SHA256 failed in libcrypto")
        return Array(output.prefix(Int(length)))
    }

    /// Unpadded base64url (RFC 4648 §5), written independently of the codec's own.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for (offset, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * offset) }
            for position in 0...chunk.count { output.append(alphabet[(value >> (18 - 6 * position)) & 0x3F]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCursor(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    CursorFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FLOW_BFF_FUZZING
    @main
    enum Replay {
        static func main() { FuzzReplay.main(CursorFuzzTarget.run) }
    }
#endif
