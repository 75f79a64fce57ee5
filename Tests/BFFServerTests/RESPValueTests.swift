import Testing

@testable import BFFRedis
@testable import BFFServer

/// The RESP codec of the Redis idempotency store, without sockets.
@Suite struct RESPValueTests {
    @Test func commandsAreArraysOfBulkStrings() {
        let bytes = RESPValue.encode(["SET", "k", "v", "NX", "PX", "1000"])
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "*6\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nNX\r\n$2\r\nPX\r\n$4\r\n1000\r\n")
    }

    @Test func repliesDecodeWhenComplete() throws {
        let cases: [(String, RESPValue)] = [
            ("+OK\r\n", .simple("OK")),
            ("-ERR wrong\r\n", .error("ERR wrong")),
            (":42\r\n", .integer(42)),
            ("$-1\r\n", .null),
            ("$5\r\na\r\nbc\r\n", .bulk(Array("a\r\nbc".utf8))),
            ("*2\r\n$1\r\na\r\n:1\r\n", .array([.bulk([97]), .integer(1)])),
        ]
        for (text, expected) in cases {
            let bytes = Array(text.utf8)
            let decoded = try RESPValue.decode(bytes[...])
            #expect(decoded?.value == expected, "\(text.debugDescription)")
            #expect(decoded?.count == bytes.count)
            // Every proper prefix needs more bytes.
            for end in 0..<bytes.count {
                #expect(try RESPValue.decode(bytes[0..<end]) == nil, "\(text.debugDescription) up to \(end)")
            }
        }
        let two = Array("+OK\r\n:7\r\n".utf8)
        #expect(try RESPValue.decode(two[...])?.count == 5)
    }

    @Test func bytesThatAreNotRESPThrow() {
        for text in ["?\r\n", ":x\r\n", "$-2\r\n", "$1\r\nab\r\n"] {
            #expect(throws: RedisError.self, "\(text.debugDescription)") { try RESPValue.decode(Array(text.utf8)[...]) }
        }
    }

    @Test func endpointsParseFromURLs() {
        #expect(RedisEndpoint(url: "redis://127.0.0.1") == RedisEndpoint(host: "127.0.0.1", port: 6379))
        #expect(
            RedisEndpoint(url: "redis://:s3cret@redis.bff.svc:6380/2")
                == RedisEndpoint(host: "redis.bff.svc", port: 6380, password: "s3cret", database: 2))
        #expect(RedisEndpoint(url: "redis://[::1]:7000")?.host == "::1")
        #expect(RedisEndpoint(url: "redis://app:pw@h")?.user == "app")
        for invalid in ["", "http://h", "redis://", "redis://h:0", "redis://h:x", "redis://h/-1", "redis://[::1"] {
            #expect(RedisEndpoint(url: invalid) == nil, "\(invalid)")
        }
    }
}
