/// `host[:port]` of a `Host` field, a URL's authority or a peer address (`[v6]:port` for IPv6): what span attributes
/// (`server.address`, `client.address`) and the access log's trusted-proxy check read. Parsed over the UTF-8 bytes:
/// `String`'s character-based searches cost thousands of instructions per call. (``HostPolicy`` has its own, stricter
/// reading, which keeps the brackets and rejects what this one tolerates.)
struct Authority {
    var host: String
    var port: Int?

    init?(_ text: String) {
        var text = text
        guard
            let (host, port) = text.withUTF8({ bytes in
                Self.split(bytes).map {
                    (String(decoding: UnsafeBufferPointer(rebasing: bytes[$0.host]), as: UTF8.self), $0.port)
                }
            })
        else { return nil }
        self.host = host
        self.port = port
    }

    /// Where the host is in `bytes` (without an IPv6 address's brackets), and the port; `nil` when `bytes` is empty
    /// or an IPv6 address's bracket is not closed.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> (host: Range<Int>, port: Int?)? {
        guard let first = bytes.first else { return nil }
        let hostRange: Range<Int>
        let rest: Int
        if first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostRange = 1..<close
            rest = close + 1
        } else {
            // One pass: the first colon, and whether there is a second (a bare IPv6 address has no port).
            var colon = -1
            var index = 0
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: ":") {
                    guard colon < 0 else { return (0..<bytes.count, nil) }
                    colon = index
                }
                index &+= 1
            }
            guard colon >= 0 else { return (0..<bytes.count, nil) }
            hostRange = 0..<colon
            rest = colon
        }
        return (hostRange, port(UnsafeBufferPointer(rebasing: bytes[rest...])))
    }

    /// The decimal port of `rest` when it is `:digits` (1–5 digits, at most 65535).
    private static func port(_ rest: UnsafeBufferPointer<UInt8>) -> Int? {
        guard rest.first == UInt8(ascii: ":"), rest.count >= 2, rest.count <= 6 else { return nil }
        var value = 0
        for byte in rest.dropFirst() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value <= 65535 ? value : nil
    }
}
