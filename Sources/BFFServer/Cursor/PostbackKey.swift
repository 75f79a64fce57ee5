/// A postback as a cache key (``PageRoutes/verifiedCursors``). Hashing reads only its last 8 bytes, the tail
/// of its HMAC signature and uniformly random, instead of all ~100; equality still compares the whole text. Only
/// postbacks that verified are cached, so without the key nobody can make entries that share a hash.
struct PostbackKey: Hashable, Sendable {
    let text: String

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            if raw.count >= 8 {
                hasher.combine(raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self))
            } else {
                hasher.combine(bytes: raw)
            }
        }
    }
}
