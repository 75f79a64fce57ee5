import Testing

@testable import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// RFC 3986 delimiters in the request target, the `Host` field's syntax (RFC 9112 §3.2) and the fields that must
/// never be trailers (RFC 9110 §6.5.1): the strictness rules of `docs/http.md` added for issue 27.
@Suite("HTTPParser targets, Host and trailers")
struct ParserAuthorityTests {
    typealias Case = ParserRejectionTests.Case

    static func get(_ target: String, host: String = "example.com") -> String {
        "GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\r\n"
    }

    static func trailer(_ field: String) -> String {
        "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\(field)\r\n\r\n"
    }

    /// The delimiters RFC 3986 leaves out of URIs (§2, appendix C), raw in the path, in the query and in an
    /// absolute-form authority.
    static let delimiters = ["<", ">", "\"", "{", "}", "|", "\\", "^", "`"]

    static let targetCases: [Case] = delimiters.flatMap { delimiter in
        [
            Case(name: "\(delimiter) in the path", raw: get("/a\(delimiter)b"), status: 400, code: "invalid_target"),
            Case(
                name: "\(delimiter) ending a long path", raw: get("/abcdefghijklmnop\(delimiter)"), status: 400,
                code: "invalid_target"),
            Case(
                name: "\(delimiter) in the query", raw: get("/search?q=\(delimiter)&page=1"), status: 400,
                code: "invalid_target"),
            Case(
                name: "\(delimiter) in an absolute-form authority", raw: get("http://exa\(delimiter)mple.com/"),
                status: 400, code: "invalid_target"),
        ]
    }

    static let hostCases: [Case] = [
        Case(name: "Host a:b", raw: get("/", host: "a:b"), status: 400, code: "invalid_host"),
        Case(name: "Host with a port and junk", raw: get("/", host: "a:80x"), status: 400, code: "invalid_host"),
        Case(name: "Host with two ports", raw: get("/", host: "a:80:81"), status: 400, code: "invalid_host"),
        Case(name: "Host port 65536", raw: get("/", host: "example.com:65536"), status: 400, code: "invalid_host"),
        Case(
            name: "Host port of 30 digits", raw: get("/", host: "a:" + String(repeating: "9", count: 30)),
            status: 400, code: "invalid_host"),
        Case(name: "Host [::1 unclosed", raw: get("/", host: "[::1"), status: 400, code: "invalid_host"),
        Case(name: "Host [::1]x", raw: get("/", host: "[::1]x"), status: 400, code: "invalid_host"),
        Case(name: "Host [::1]:x", raw: get("/", host: "[::1]:x"), status: 400, code: "invalid_host"),
        Case(name: "Host []", raw: get("/", host: "[]"), status: 400, code: "invalid_host"),
        Case(name: "Host [nope]", raw: get("/", host: "[nope]"), status: 400, code: "invalid_host"),
        Case(name: "Host [1:2:3]", raw: get("/", host: "[1:2:3]"), status: 400, code: "invalid_host"),
        Case(name: "Host [::1::2]", raw: get("/", host: "[::1::2]"), status: 400, code: "invalid_host"),
        Case(name: "Host [12345::]", raw: get("/", host: "[12345::]"), status: 400, code: "invalid_host"),
        Case(name: "Host [::1.2.3.256]", raw: get("/", host: "[::1.2.3.256]"), status: 400, code: "invalid_host"),
        Case(
            name: "Host [fe80::1%25eth0] (zone)", raw: get("/", host: "[fe80::1%25eth0]"), status: 400,
            code: "invalid_host"),
        Case(name: "Host [v1.] (empty IPvFuture)", raw: get("/", host: "[v1.]"), status: 400, code: "invalid_host"),
        Case(name: "Host ::1 without brackets", raw: get("/", host: "::1"), status: 400, code: "invalid_host"),
        Case(name: "Host with ]", raw: get("/", host: "a]"), status: 400, code: "invalid_host"),
        Case(name: "Host with a slash", raw: get("/", host: "a/b"), status: 400, code: "invalid_host"),
        Case(name: "Host with userinfo", raw: get("/", host: "user@a"), status: 400, code: "invalid_host"),
        Case(name: "Host with a space", raw: get("/", host: "a b"), status: 400, code: "invalid_host"),
        Case(name: "Host with a bad escape", raw: get("/", host: "a%2"), status: 400, code: "invalid_host"),
        Case(name: "Host with a non-hex escape", raw: get("/", host: "a%zz"), status: 400, code: "invalid_host"),
        Case(name: "Host with non-ASCII", raw: get("/", host: "caf\u{E9}"), status: 400, code: "invalid_host"),
        Case(
            name: "Host a:b in HTTP/1.0", raw: "GET / HTTP/1.0\r\nHost: a:b\r\n\r\n", status: 400, code: "invalid_host"),
        Case(
            name: "Host a:b with absolute-form", raw: get("http://example.com/", host: "a:b"), status: 400,
            code: "invalid_host"),
        Case(name: "absolute-form port a:b", raw: get("http://a:b/"), status: 400, code: "invalid_target"),
        Case(name: "absolute-form [::1 unclosed", raw: get("http://[::1/"), status: 400, code: "invalid_target"),
        Case(name: "absolute-form port 70000", raw: get("http://a:70000/"), status: 400, code: "invalid_target"),
        Case(name: "absolute-form userinfo", raw: get("http://u@a/"), status: 400, code: "invalid_target"),
        // The existing rule stays: exactly one Host in HTTP/1.1.
        Case(
            name: "two valid Hosts", raw: "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", status: 400,
            code: "duplicate_host"),
        Case(name: "no Host", raw: "GET / HTTP/1.1\r\n\r\n", status: 400, code: "missing_host"),
    ]

    static let trailerCases: [Case] = HeadParser.forbiddenTrailerNames.sorted().flatMap { name in
        [
            Case(name: "trailer \(name)", raw: trailer("\(name): x"), status: 400, code: "forbidden_trailer"),
            Case(
                name: "trailer \(name.uppercased()) after an allowed one",
                raw: trailer("X-Checksum: 1\r\n\(name.uppercased()): x"), status: 400, code: "forbidden_trailer"),
        ]
    }

    static let cases = targetCases + hostCases + trailerCases

    @Test(arguments: cases)
    func rejects(_ testCase: Case) {
        testCase.expectRefused()
    }

    /// Percent-encoded, the delimiters are accepted and stay encoded in the path and query.
    @Test func acceptsEncodedDelimiters() throws {
        let encoded = "%3C%3E%22%7B%7D%7C%5C%5E%60"
        let request = try #require(parseAll(Self.get("/a\(encoded)?q=\(encoded)")).requests.first)
        #expect(request.path == "/a\(encoded)")
        #expect(request.query == "q=\(encoded)")
    }

    @Test(arguments: [
        "h", "example.com", "EXAMPLE.com", "example.com:8080", "example.com:", "example.com:0", "example.com:65535",
        "example.com:00080", "127.0.0.1", "127.0.0.1:8080", "1.2.3.999", "a-b_c~d!$&'()*+,;=", "xn--caf-dma.example",
        "%65xample.com", "[::1]", "[::1]:8080", "[::1]:", "[::]", "[::ffff:192.0.2.1]", "[2001:db8::8:800:200c:417a]",
        "[1:2:3:4:5:6:7:8]:443", "[1:2:3:4:5:6:7::]", "[::2:3:4:5:6:7:8]", "[1:2:3:4:5:6:1.2.3.4]",
        "[FE80::ABCD]", "[v1.fe80::a+en1]", "[V7.a:b]",
    ])
    func acceptsHosts(_ value: String) throws {
        let result = parseAll(Self.get("/", host: value))
        #expect(result.error == nil, "\(value): \(String(describing: result.error))")
        let request = try #require(result.requests.first)
        #expect(request.headers["Host"] == value)
    }

    @Test(arguments: ["http://example.com:/x", "http://[::1]:8080/x", "https://a.b:443?q", "http://h"])
    func acceptsAbsoluteFormAuthorities(_ target: String) {
        let result = parseAll(Self.get(target))
        #expect(result.error == nil, "\(target): \(String(describing: result.error))")
        #expect(result.requests.count == 1)
    }

    /// Trailers outside the list are kept, in any case.
    @Test func acceptsOtherTrailers() throws {
        let raw = Self.trailer("X-Checksum: abc\r\nServer-Timing: db;dur=53\r\nContent-MD5: x\r\nhostname: y")
        let request = try #require(parseAll(raw).requests.first)
        #expect(request.body == Array("hi".utf8))
        #expect(request.trailers.map(\.name) == ["X-Checksum", "Server-Timing", "Content-MD5", "hostname"])
    }

    /// The refusal names the field as sent.
    @Test func forbiddenTrailerNamesTheField() {
        let result = parseAll(Self.trailer("Content-Length: 5"))
        #expect(result.error?.detail.hasPrefix("Content-Length is not allowed in a trailer section") == true)
    }

    /// The hand-written IPv6 check agrees with the C library's `inet_pton` on 30,000 random strings over an
    /// alphabet of hex digits, `:` and `.` (deterministic: a fixed-seed generator), and on each RFC 4291 form.
    @Test func ipv6AgreesWithInetPton() {
        func reference(_ text: String) -> Bool {
            var address = in6_addr()
            return inet_pton(AF_INET6, text, &address) == 1
        }
        func ours(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { HeadParser.isIPv6Address($0, 0, bytes.count) }
        }
        let examples = [
            "::", "::1", "1::", "1::2", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
            "1:2:3:4:5:6:1.2.3.4", "1::1.2.3.4", "1:2:3:4:5:6:7:8:9", ":1", "1:", ":::", "1:::2", "1::2::3",
            "12345::", "::01.2.3.4", "::1.2.3", "::1.2.3.4.5", "1.2.3.4", "",
        ]
        for example in examples {
            #expect(ours(example) == reference(example), "\(example.debugDescription)")
        }
        let alphabet = Array("0123456789abcdefABCDEF::::::.....")
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var valid = 0
        for _ in 0..<30_000 {
            let text = String((0..<next(20)).map { _ in alphabet[next(alphabet.count)] })
            let expected = reference(text)
            #expect(ours(text) == expected, "\(text.debugDescription): inet_pton says \(expected)")
            if expected { valid += 1 }
        }
        #expect(valid > 100, "the alphabet produces valid addresses too")
    }
}
