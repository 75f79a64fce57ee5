import Synchronization

/// `X-Request-ID`: the client's when it is 1–128 visible ASCII characters, else a new one: a random per-process
/// prefix and a counter (32 hex digits, unique across replicas without a random draw per request).
enum RequestID {
    static let prefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    static let counter = Atomic<UInt64>(0)

    static func accept(_ value: String?) -> String {
        if var value, (1...128).contains(value.utf8.count),
            value.withUTF8({ $0.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != 0x5C } })
        {
            return value
        }
        return make(counter.add(1, ordering: .relaxed).newValue)
    }

    /// The prefix and `sequence`, 16 hex digits each, formatted into the string's own storage.
    static func make(_ sequence: UInt64) -> String {
        String(unsafeUninitializedCapacity: 32) { storage in
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { digits in
                for index in 0..<16 {
                    let shift = UInt64(60 - 4 * index)
                    storage[index] = digits[Int((prefix >> shift) & 0xF)]
                    storage[16 + index] = digits[Int((sequence >> shift) & 0xF)]
                }
            }
            return 32
        }
    }
}
