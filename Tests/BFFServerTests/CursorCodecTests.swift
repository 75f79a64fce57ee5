import Testing

@testable import BFFServer

@Suite struct CursorCodecTests {
    let codec = CursorCodec(key: String(repeating: "k", count: 32))
    let cursor = Cursor(pageID: "feed", version: "0123456789abcdef", position: 5, parameters: ["q": "shoes", "a": "1"])

    @Test func roundTrips() throws {
        let postback = codec.encode(cursor)
        #expect(try codec.decode(postback) == cursor)
        #expect(postback.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
    }

    @Test func everyFlippedCharacterIsRejected() throws {
        let postback = Array(codec.encode(cursor).utf8)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
        for index in postback.indices {
            for replacement in alphabet where replacement != postback[index] {
                var tampered = postback
                tampered[index] = replacement
                #expect(throws: CursorError.self) { try codec.decode(String(decoding: tampered, as: UTF8.self)) }
            }
        }
    }

    @Test func aForeignKeyIsRejectedAndAPreviousKeyAccepted() throws {
        let other = CursorCodec(key: String(repeating: "x", count: 32))
        let postback = other.encode(cursor)
        #expect(throws: CursorError.self) { try codec.decode(postback) }
        let rotated = CursorCodec(
            key: String(repeating: "n", count: 32), previousKeys: [String(repeating: "x", count: 32)])
        #expect(try rotated.decode(postback) == cursor)
        #expect(rotated.encode(cursor) != postback)
    }

    @Test(arguments: ["", ".", "abc", "abc.def", "a.b.c", String(repeating: "A", count: 5000)])
    func junkIsRejected(_ postback: String) {
        #expect(throws: CursorError.self) { try codec.decode(postback) }
    }

    @Test func theLengthCapIsCheckedFirst() {
        let short = CursorCodec(key: String(repeating: "k", count: 32), maximumLength: 64)
        let error = #expect(throws: CursorError.self) { try short.decode(codec.encode(cursor)) }
        #expect(error?.reason == "the postback is longer than 64 bytes")
    }

    @Test func base64URLIsCanonical() {
        for length in 0..<20 {
            let bytes = (0..<length).map { UInt8(($0 * 37 + 11) % 256) }
            #expect(Base64URL.decode(Array(Base64URL.encode(bytes).utf8)) == bytes)
        }
        #expect(Base64URL.decode(Array("QR".utf8)) == nil)  // non-zero pad bits: "QQ" is canonical for 0x41
        #expect(Base64URL.decode(Array("QQ".utf8)) == [0x41])
        #expect(Base64URL.decode(Array("Q".utf8)) == nil)
        #expect(Base64URL.decode(Array("QQ==".utf8)) == nil)
    }

    @Test func libcryptoPrimitivesMatchKnownVectors() {
        // RFC 4231 test case 2.
        let mac = Crypto.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Crypto.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            Crypto.hex(Crypto.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Crypto.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!Crypto.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!Crypto.constantTimeEquals([1, 2], [1, 2, 3]))
    }
}
