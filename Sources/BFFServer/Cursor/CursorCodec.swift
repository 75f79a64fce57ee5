import PageModel

/// Signs and verifies pagination postbacks: `base64url(payload) "." base64url(HMAC-SHA256(key, base64url(payload)))`.
///
/// Self-contained (no server state), so any replica holding the key continues a cursor another issued. Verification
/// checks the length cap before decoding anything and compares MACs in constant time; only then is the payload
/// parsed. Previous keys are accepted for verification during a rotation but never used to sign.
public struct CursorCodec: Sendable {
    let key: [UInt8]
    let previousKeys: [[UInt8]]
    /// Longest postback accepted.
    public let maximumLength: Int

    public init(key: String, previousKeys: [String] = [], maximumLength: Int = 2048) {
        self.key = Array(key.utf8)
        self.previousKeys = previousKeys.map { Array($0.utf8) }
        self.maximumLength = maximumLength
    }

    /// A codec with a random per-process key (development default).
    public static func ephemeral() -> CursorCodec {
        CursorCodec(key: Base64URL.encode(Crypto.randomBytes(32)))
    }

    public func encode(_ cursor: Cursor) -> String {
        let payload = Base64URL.encode(JSONWriter().write(cursor.json))
        let mac = Crypto.hmacSHA256(key: key, message: Array(payload.utf8))
        return payload + "." + Base64URL.encode(mac)
    }

    /// The cursor a postback carries, or `invalid_cursor` for anything not signed by one of our keys.
    public func decode(_ postback: String) throws(CursorError) -> Cursor {
        guard !postback.isEmpty, postback.utf8.count <= maximumLength else {
            throw CursorError(
                reason: postback.isEmpty
                    ? "the postback is empty" : "the postback is longer than \(maximumLength) bytes")
        }
        let parts = postback.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 2, let mac = Base64URL.decode(parts[1]), mac.count == 32 else {
            throw CursorError(reason: "the postback is not a cursor this server issued")
        }
        let payload = Array(parts[0])
        let signedByUs = ([key] + previousKeys).contains { candidate in
            Crypto.constantTimeEquals(Crypto.hmacSHA256(key: candidate, message: payload), mac)
        }
        guard signedByUs else { throw CursorError(reason: "the postback's signature does not verify") }
        guard let bytes = Base64URL.decode(payload[...]), let json = try? JSONParser(maximumDepth: 4).parse(bytes),
            let cursor = Cursor(json: json)
        else { throw CursorError(reason: "the postback's payload is malformed") }
        return cursor
    }
}

/// A postback that cannot be used: 400 `invalid_cursor`.
public struct CursorError: Error, Sendable, Hashable {
    public var reason: String
}

/// base64url without padding (RFC 4648 §5).
enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int((value >> UInt32(shift)) & 0x3F)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var value = UInt32(bytes[index]) << 16
            if rest == 2 { value |= UInt32(bytes[index + 1]) << 8 }
            for shift in [18, 12, 6, 0].prefix(rest + 1) {
                output.append(alphabet[Int((value >> UInt32(shift)) & 0x3F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes canonical unpadded base64url; `nil` for any other byte, a length of 1 mod 4, or non-zero pad bits.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text {
            let value = reverse[Int(byte)]
            guard value != 0xFF else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
