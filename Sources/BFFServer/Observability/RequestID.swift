import Synchronization

/// `X-Request-ID`: the client's when it is 1–128 visible ASCII characters, else a new one: a random per-process
/// prefix and a counter (32 hex digits, unique across replicas without a random draw per request).
enum RequestID {
    static let prefix: String = {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next())
    }()
    static let counter = Atomic<UInt64>(0)

    static func accept(_ value: String?) -> String {
        if let value, (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        {
            return value
        }
        return prefix + hex(counter.add(1, ordering: .relaxed).newValue)
    }

    static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.utf8.count) + text
    }
}
