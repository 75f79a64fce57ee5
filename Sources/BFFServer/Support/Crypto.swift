import CCrypto

/// The few libcrypto (OpenSSL) primitives the server needs. Nothing here is hand-rolled.
package enum Crypto {
    /// HMAC-SHA256 of `message` under `key` (32 bytes).
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

    /// SHA-256 of `bytes` (32 bytes).
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, EVP_sha256(), nil)
        }
        precondition(result == 1, "SHA-256 failed in libcrypto")
        return Array(output.prefix(Int(length)))
    }

    /// SHA-256 (32 bytes) of the bytes `produce` hands to its argument, in order: the input is hashed piece by
    /// piece (`EVP_DigestUpdate`), so it never has to exist as one buffer.
    static func sha256(of produce: (_ feed: ([UInt8]) -> Void) -> Void) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed in libcrypto") }
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "SHA-256 failed in libcrypto")
        produce { piece in
            let result = piece.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            precondition(result == 1, "SHA-256 failed in libcrypto")
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &output, &length) == 1, "SHA-256 failed in libcrypto")
        return Array(output.prefix(Int(length)))
    }

    /// Compares two byte strings in time independent of where they differ (`CRYPTO_memcmp`).
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, lhs.count) == 0 }
        }
    }

    /// `count` cryptographically random bytes (`RAND_bytes`).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "RAND_bytes failed in libcrypto")
        return bytes
    }

    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
