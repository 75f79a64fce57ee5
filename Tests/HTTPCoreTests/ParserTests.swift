import Testing

@testable import HTTPCore

/// Feeds `raw` to a parser (whole, or one byte at a time) and collects requests until an error or the end.
func parseAll(
    _ raw: String, limits: HTTPParser.Limits = .init(), byteByByte: Bool = false
) -> (requests: [HTTPRequest], error: HTTPParseError?, continues: Int) {
    var parser = HTTPParser(limits: limits)
    var requests: [HTTPRequest] = []
    var continues = 0
    let bytes = Array(raw.utf8)
    let pieces: [[UInt8]] = byteByByte ? bytes.map { [$0] } : [bytes]
    do {
        for piece in pieces {
            parser.append(piece)
            while let event = try parser.next() {
                switch event {
                case .request(let request): requests.append(request)
                case .expectContinue: continues += 1
                }
            }
        }
    } catch {
        return (requests, error, continues)
    }
    return (requests, nil, continues)
}

@Suite("HTTPParser rejects")
struct ParserRejectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var raw: String
        var status: Int
        var code: String
        var limits = HTTPParser.Limits()
        var testDescription: String { name }

        /// Parsed whole and byte by byte: no request, the expected status and code.
        func expectRefused(sourceLocation: SourceLocation = #_sourceLocation) {
            for byteByByte in [false, true] {
                let result = parseAll(raw, limits: limits, byteByByte: byteByByte)
                #expect(result.requests.isEmpty, "\(name) produced a request", sourceLocation: sourceLocation)
                #expect(
                    result.error?.status.code == status, "\(name): \(String(describing: result.error))",
                    sourceLocation: sourceLocation)
                #expect(result.error?.code == code, "\(name) byteByByte=\(byteByByte)", sourceLocation: sourceLocation)
            }
        }
    }

    static let host = "Host: example.com\r\n"
    static var small: HTTPParser.Limits {
        var limits = HTTPParser.Limits()
        limits.maxRequestLineLength = 64
        limits.maxHeaderFieldLength = 64
        limits.maxHeaderSectionSize = 256
        limits.maxHeaderCount = 4
        limits.maxBodySize = 16
        limits.maxChunkLineLength = 32
        return limits
    }

    static let cases: [Case] = [
        Case(name: "bare CR in request line", raw: "GET / HTTP/1.1\r\(host)\r\n", status: 400, code: "bare_cr"),
        Case(
            name: "bare CR in field value", raw: "GET / HTTP/1.1\r\n\(host)X: a\rb\r\n\r\n", status: 400,
            code: "bare_cr"),
        Case(name: "bare LF line ending", raw: "GET / HTTP/1.1\n\(host)\r\n", status: 400, code: "bare_lf"),
        Case(name: "bare LF ends head", raw: "GET / HTTP/1.1\r\n\(host)\n", status: 400, code: "bare_lf"),
        Case(name: "obs_fold", raw: "GET / HTTP/1.1\r\n\(host)X: a\r\n b\r\n\r\n", status: 400, code: "obs_fold"),
        Case(
            name: "obs-fold with tab", raw: "GET / HTTP/1.1\r\n\(host)X: a\r\n\tb\r\n\r\n", status: 400,
            code: "obs_fold"),
        Case(
            name: "whitespace before colon", raw: "GET / HTTP/1.1\r\nHost : a\r\n\r\n", status: 400,
            code: "whitespace_before_colon"),
        Case(
            name: "tab before colon", raw: "GET / HTTP/1.1\r\n\(host)X\t: a\r\n\r\n", status: 400,
            code: "whitespace_before_colon"),
        Case(
            name: "NUL in value", raw: "GET / HTTP/1.1\r\n\(host)X: a\u{0}b\r\n\r\n", status: 400,
            code: "invalid_field_value"),
        Case(
            name: "control in value", raw: "GET / HTTP/1.1\r\n\(host)X: a\u{1}b\r\n\r\n", status: 400,
            code: "invalid_field_value"),
        Case(
            name: "DEL in value", raw: "GET / HTTP/1.1\r\n\(host)X: a\u{7F}\r\n\r\n", status: 400,
            code: "invalid_field_value"),
        Case(name: "no colon", raw: "GET / HTTP/1.1\r\n\(host)Xyz\r\n\r\n", status: 400, code: "invalid_field_name"),
        Case(
            name: "empty field name", raw: "GET / HTTP/1.1\r\n\(host): a\r\n\r\n", status: 400,
            code: "invalid_field_name"),
        Case(
            name: "bad char in name", raw: "GET / HTTP/1.1\r\n\(host)X(y): a\r\n\r\n", status: 400,
            code: "invalid_field_name"),
        Case(
            name: "CL letters", raw: "POST / HTTP/1.1\r\n\(host)Content-Length: abc\r\n\r\n", status: 400,
            code: "invalid_content_length"),
        Case(
            name: "CL negative", raw: "POST / HTTP/1.1\r\n\(host)Content-Length: -1\r\n\r\n", status: 400,
            code: "invalid_content_length"),
        Case(
            name: "CL plus sign", raw: "POST / HTTP/1.1\r\n\(host)Content-Length: +5\r\n\r\n", status: 400,
            code: "invalid_content_length"),
        Case(
            name: "CL empty", raw: "POST / HTTP/1.1\r\n\(host)Content-Length:\r\n\r\n", status: 400,
            code: "invalid_content_length"),
        Case(
            name: "CL inner space", raw: "POST / HTTP/1.1\r\n\(host)Content-Length: 1 2\r\n\r\n", status: 400,
            code: "invalid_content_length"),
        Case(
            name: "CL overflow", raw: "POST / HTTP/1.1\r\n\(host)Content-Length: 99999999999999999999999\r\n\r\n",
            status: 400,
            code: "invalid_content_length"),
        Case(
            name: "CL conflicting fields",
            raw: "POST / HTTP/1.1\r\n\(host)Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            status: 400, code: "conflicting_content_length"),
        Case(
            name: "CL conflicting list", raw: "POST / HTTP/1.1\r\n\(host)Content-Length: 1, 2\r\n\r\nab", status: 400,
            code: "conflicting_content_length"),
        Case(
            name: "CL with TE",
            raw: "POST / HTTP/1.1\r\n\(host)Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
            status: 400, code: "content_length_with_transfer_encoding"),
        Case(
            name: "chunked not last", raw: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked, gzip\r\n\r\n",
            status: 400,
            code: "chunked_not_last"),
        Case(
            name: "chunked twice",
            raw: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            status: 400, code: "chunked_not_last"),
        Case(
            name: "empty TE", raw: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: ,\r\n\r\n", status: 400,
            code: "invalid_transfer_encoding"),
        Case(
            name: "TE in HTTP/1.0", raw: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400,
            code: "transfer_encoding_http10"),
        Case(
            name: "unknown coding before chunked",
            raw: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: gzip, chunked\r\n\r\n",
            status: 501, code: "unsupported_transfer_coding"),
        Case(
            name: "unknown coding alone", raw: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: foo\r\n\r\n", status: 501,
            code: "unsupported_transfer_coding"),
        Case(name: "missing Host", raw: "GET / HTTP/1.1\r\nX: y\r\n\r\n", status: 400, code: "missing_host"),
        Case(name: "repeated Host", raw: "GET / HTTP/1.1\r\n\(host)\(host)\r\n", status: 400, code: "duplicate_host"),
        Case(
            name: "repeated Host 1.0", raw: "GET / HTTP/1.0\r\n\(host)\(host)\r\n", status: 400, code: "duplicate_host"),
        Case(name: "invalid Host", raw: "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", status: 400, code: "invalid_host"),
        Case(name: "chunk size 0x", raw: chunked("0x5\r\nhello\r\n0\r\n\r\n"), status: 400, code: "invalid_chunk_size"),
        Case(name: "chunk size junk", raw: chunked("zz\r\n"), status: 400, code: "invalid_chunk_size"),
        Case(name: "chunk size empty", raw: chunked("\r\n"), status: 400, code: "invalid_chunk_size"),
        Case(name: "chunk size negative", raw: chunked("-1\r\n"), status: 400, code: "invalid_chunk_size"),
        Case(
            name: "chunk size trailing space", raw: chunked("5 \r\nhello\r\n"), status: 400, code: "invalid_chunk_size"),
        Case(
            name: "chunk size overflow", raw: chunked("fffffffffffffffff\r\n"), status: 400, code: "chunk_size_overflow"
        ),
        Case(name: "chunk size bare LF", raw: chunked("5\nhello\r\n"), status: 400, code: "bare_lf"),
        Case(
            name: "chunk data without CRLF", raw: chunked("5\r\nhelloXX0\r\n\r\n"), status: 400, code: "invalid_chunk"),
        Case(
            name: "chunk ext with control", raw: chunked("5;a=\u{1}\r\nhello\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "chunk ext too long", raw: chunked("5;" + String(repeating: "a", count: 2000) + "\r\n"), status: 400,
            code: "chunk_line_too_long"),
        Case(name: "trailer obs-fold", raw: chunked("0\r\nX: a\r\n b\r\n\r\n"), status: 400, code: "obs_fold"),
        Case(
            name: "trailer bad value", raw: chunked("0\r\nX: \u{1}\r\n\r\n"), status: 400, code: "invalid_field_value"),
        Case(name: "HTTP/2.0", raw: "GET / HTTP/2.0\r\n\(host)\r\n", status: 505, code: "unsupported_version"),
        Case(name: "HTTP/3.0", raw: "GET / HTTP/3.0\r\n\(host)\r\n", status: 505, code: "unsupported_version"),
        Case(name: "HTTP/2 preface", raw: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", status: 505, code: "unsupported_version"),
        Case(name: "HTTP/0.9 explicit", raw: "GET / HTTP/0.9\r\n\r\n", status: 505, code: "unsupported_version"),
        Case(name: "HTTP/0.9 simple request", raw: "GET /\r\n\r\n", status: 400, code: "missing_version"),
        Case(
            name: "lower-case version", raw: "GET / http/1.1\r\n\(host)\r\n", status: 400, code: "invalid_request_line"),
        Case(name: "version junk", raw: "GET / HTTP/1.1x\r\n\(host)\r\n", status: 400, code: "invalid_request_line"),
        Case(name: "double space", raw: "GET  / HTTP/1.1\r\n\(host)\r\n", status: 400, code: "invalid_request_line"),
        Case(name: "bad method char", raw: "G@T / HTTP/1.1\r\n\(host)\r\n", status: 400, code: "invalid_method"),
        Case(name: "leading space", raw: " GET / HTTP/1.1\r\n\(host)\r\n", status: 400, code: "invalid_method"),
        Case(name: "fragment in target", raw: "GET /a#b HTTP/1.1\r\n\(host)\r\n", status: 400, code: "invalid_target"),
        Case(name: "bad percent escape", raw: "GET /a%zz HTTP/1.1\r\n\(host)\r\n", status: 400, code: "invalid_target"),
        Case(name: "relative target", raw: "GET a/b HTTP/1.1\r\n\(host)\r\n", status: 400, code: "invalid_target"),
        Case(
            name: "ftp absolute form", raw: "GET ftp://h/a HTTP/1.1\r\n\(host)\r\n", status: 400, code: "invalid_target"
        ),
        Case(
            name: "absolute form without authority", raw: "GET http:///a HTTP/1.1\r\n\(host)\r\n", status: 400,
            code: "invalid_target"),
        Case(name: "asterisk with GET", raw: "GET * HTTP/1.1\r\n\(host)\r\n", status: 400, code: "invalid_target"),
        Case(
            name: "CONNECT", raw: "CONNECT example.com:443 HTTP/1.1\r\n\(host)\r\n", status: 501,
            code: "connect_not_supported"),
        Case(
            name: "Expect other", raw: "POST / HTTP/1.1\r\n\(host)Expect: 200-ok\r\n\r\n", status: 417,
            code: "expectation_failed"),
        Case(
            name: "Content-Encoding body",
            raw: "POST / HTTP/1.1\r\n\(host)Content-Encoding: gzip\r\nContent-Length: 1\r\n\r\nx",
            status: 415, code: "content_encoding_not_supported"),
        Case(
            name: "request line limit", raw: "GET /\(String(repeating: "a", count: 80)) HTTP/1.1\r\n\(host)\r\n",
            status: 414,
            code: "request_line_too_long", limits: small),
        Case(
            name: "request line limit, unterminated", raw: "GET /\(String(repeating: "a", count: 80))", status: 414,
            code: "request_line_too_long", limits: small),
        Case(
            name: "field limit", raw: "GET / HTTP/1.1\r\n\(host)X: \(String(repeating: "a", count: 80))\r\n\r\n",
            status: 431,
            code: "header_field_too_large", limits: small),
        Case(
            name: "field limit, unterminated", raw: "GET / HTTP/1.1\r\nX: \(String(repeating: "a", count: 80))",
            status: 431,
            code: "header_field_too_large", limits: small),
        Case(
            name: "header count", raw: "GET / HTTP/1.1\r\n\(host)A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", status: 431,
            code: "too_many_headers", limits: small),
        Case(
            name: "header section",
            raw: "GET / HTTP/1.1\r\n" + String(repeating: "X: \(String(repeating: "a", count: 60))\r\n", count: 5),
            status: 431, code: "header_section_too_large",
            limits: {
                var limits = small
                limits.maxHeaderCount = 100
                return limits
            }()),
        Case(
            name: "body limit from Content-Length", raw: "POST / HTTP/1.1\r\n\(host)Content-Length: 17\r\n\r\n",
            status: 413,
            code: "body_too_large", limits: small),
        Case(
            name: "body limit while chunked", raw: chunked("a\r\n0123456789\r\n7\r\n0123456\r\n0\r\n\r\n"), status: 413,
            code: "body_too_large", limits: small),
    ]

    static func chunked(_ body: String) -> String {
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n" + body
    }

    @Test(arguments: cases)
    func rejects(_ testCase: Case) {
        testCase.expectRefused()
    }
}

@Suite("HTTPParser accepts")
struct ParserAcceptanceTests {
    @Test func simpleGet() throws {
        let (requests, error, _) = parseAll("GET /a/b?x=1&y=%20z HTTP/1.1\r\nHost: h\r\nAccept:  text/html \t\r\n\r\n")
        #expect(error == nil)
        let request = try #require(requests.first)
        #expect(request.method == .get)
        #expect(request.target == "/a/b?x=1&y=%20z")
        #expect(request.path == "/a/b")
        #expect(request.query == "x=1&y=%20z")
        #expect(request.queryItem("y") == " z")
        #expect(request.version == .http11)
        #expect(request.headers["accept"] == "text/html")
        #expect(request.headers["HOST"] == "h")
        #expect(request.wantsKeepAlive)
        #expect(request.body.isEmpty)
    }

    @Test func queryItemsAreDecodedLazilyAndExactly() throws {
        let (requests, _, _) = parseAll(
            "GET /p?a=1&&b&c=x+y%2Bz&%62=second-b&e=&a=2 HTTP/1.1\r\nHost: h\r\n\r\n")
        let request = try #require(requests.first)
        #expect(request.queryItem("a") == "1")
        #expect(request.queryItem("b") == "")
        #expect(request.queryItem("c") == "x y+z")
        #expect(request.queryItem("e") == "")
        #expect(request.queryItem("missing") == nil)
        #expect(request.queryItems.map(\.name) == ["a", "b", "c", "b", "e", "a"])
        #expect(request.queryItems.map(\.value) == ["1", "", "x y+z", "second-b", "", "2"])
    }

    @Test func keepAliveRules() throws {
        #expect(
            parseAll("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").requests.first?.wantsKeepAlive == false)
        #expect(parseAll("GET / HTTP/1.0\r\n\r\n").requests.first?.wantsKeepAlive == false)
        #expect(parseAll("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").requests.first?.wantsKeepAlive == true)
    }

    @Test func http10WithoutHost() {
        let (requests, error, _) = parseAll("GET / HTTP/1.0\r\n\r\n")
        #expect(error == nil)
        #expect(requests.first?.version == .http10)
    }

    @Test func absoluteAndAsteriskForms() throws {
        let absolute = try #require(
            parseAll("GET http://example.com:80/p/q?r=1 HTTP/1.1\r\nHost: x\r\n\r\n").requests.first)
        #expect(absolute.path == "/p/q")
        #expect(absolute.query == "r=1")
        let bare = try #require(parseAll("GET HTTPS://example.com HTTP/1.1\r\nHost: x\r\n\r\n").requests.first)
        #expect(bare.path == "/")
        let star = try #require(parseAll("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n").requests.first)
        #expect(star.path == "*")
    }

    @Test func leadingEmptyLinesAreIgnored() {
        let (requests, error, _) = parseAll("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(error == nil)
        #expect(requests.count == 1)
    }

    @Test func contentLengthBody() throws {
        for byteByByte in [false, true] {
            let (requests, error, _) = parseAll(
                "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: h\r\n\r\n",
                byteByByte: byteByByte)
            #expect(error == nil)
            #expect(requests.count == 2)
            #expect(requests.first?.body == Array("hello".utf8))
        }
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let raw =
            "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n"
            + "5;name=value;flag\r\nhello\r\n6 ; q=\"x y\"\r\n world\r\n0\r\nChecksum: abc\r\nX-T:  2 \r\n\r\n"
        for byteByByte in [false, true] {
            let (requests, error, _) = parseAll(raw, byteByByte: byteByByte)
            #expect(error == nil)
            let request = try #require(requests.first)
            #expect(String(decoding: request.body, as: UTF8.self) == "hello world")
            #expect(request.trailers["checksum"] == "abc")
            #expect(request.trailers["x-t"] == "2")
        }
    }

    @Test func pipelinedRequestsInOrder() {
        let raw = (1...5).map { "GET /\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined()
        let (requests, error, _) = parseAll(raw)
        #expect(error == nil)
        #expect(requests.map(\.path) == ["/1", "/2", "/3", "/4", "/5"])
    }

    @Test func expectContinueBeforeBody() throws {
        var parser = HTTPParser()
        parser.append(Array("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n".utf8))
        guard case .expectContinue = try parser.next() else {
            Issue.record("expected 100-continue")
            return
        }
        #expect(try parser.next() == nil)
        parser.append(Array("abc".utf8))
        guard case .request(let request) = try parser.next() else {
            Issue.record("expected request")
            return
        }
        #expect(request.body == Array("abc".utf8))
        // With the body already there, no 100-continue event.
        #expect(
            parseAll("PUT / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx").continues == 0)
    }

    @Test func obsTextAndEmptyValues() throws {
        let request = try #require(
            parseAll("GET / HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Obs: caf\u{E9}\r\n\r\n").requests.first)
        #expect(request.headers["x-empty"] == "")
        #expect(request.headers["x-obs"] == "caf\u{E9}")
    }

    @Test func contentEncodingWithoutBodyIsFine() {
        #expect(parseAll("GET / HTTP/1.1\r\nHost: h\r\nContent-Encoding: gzip\r\n\r\n").error == nil)
    }

    @Test func limitsAtTheBoundaryAreAccepted() {
        var limits = HTTPParser.Limits()
        limits.maxRequestLineLength = 20
        limits.maxHeaderCount = 2
        limits.maxBodySize = 4
        let line = "GET /" + String(repeating: "a", count: 6) + " HTTP/1.1"
        #expect(line.utf8.count == 20)
        let result = parseAll("\(line)\r\nHost: h\r\nA: b\r\nContent-Length: 0\r\n\r\n", limits: limits)
        #expect(result.error?.code == "too_many_headers")
        let ok = parseAll("\(line)\r\nHost: h\r\nContent-Length: 4\r\n\r\nabcd", limits: limits)
        #expect(ok.error == nil)
        #expect(ok.requests.count == 1)
    }
}

/// The request-target scan checks eight bytes at a time: every byte value, at every offset of a word, in the path
/// and in the query, gets the verdict RFC 3986 gives.
@Suite("HTTPParser request-target bytes")
struct ParserTargetByteTests {
    /// RFC 3986 `pchar` (`unreserved`, `sub-delims`, `:`, `@`), `/`, `?`, and the `[` `]` of IP literals; `%` and
    /// the space change the line's structure and have their own tests.
    static let allowed = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?[]".utf8)

    @Test(arguments: 0..<24, [false, true])
    func everyByteAtEveryOffset(offset: Int, inQuery: Bool) {
        let template = Array((inQuery ? "/?abcdefghijklmnopqrstuvwxyz" : "/abcdefghijklmnopqrstuvwxyz").utf8)
        let position = template.count - 26 + offset
        for value in 0...255 {
            let byte = UInt8(value)
            if byte == 0x20 || byte == UInt8(ascii: "%") { continue }
            var target = template
            target[position] = byte
            let raw = Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
            var parser = HTTPParser()
            parser.append(raw)
            let result = Result { () throws(HTTPParseError) in try parser.next() }
            switch result {
            case .success(.request(let request)?):
                #expect(Self.allowed.contains(byte), "byte \(value) at \(offset) accepted (query: \(inQuery))")
                if inQuery {
                    #expect(request.path == "/" && request.query?.utf8.count == target.count - 2)
                } else if byte == UInt8(ascii: "?") {
                    #expect(request.path.utf8.count == position, "byte \(value) at \(offset)")
                    #expect(request.query?.utf8.count == target.count - 1 - position)
                } else {
                    #expect(request.query == nil && request.path.utf8.count == target.count)
                }
            case .failure(let error):
                #expect(!Self.allowed.contains(byte), "byte \(value) at \(offset) rejected (query: \(inQuery))")
                let expected = [0x0A: "bare_lf", 0x0D: "bare_cr"][value] ?? "invalid_target"
                #expect(error.code == expected, "byte \(value): \(error)")
            default:
                Issue.record("byte \(value) at \(offset): no request and no error")
            }
        }
    }

    /// The word test alone agrees with the byte rules: a word passes only if each of its bytes needs no check, it
    /// passes for words made of the bytes it is meant to let through (each byte value in each position, the other
    /// seven bytes drawn from that set), and otherwise its lowest mark is the first byte that needs a check.
    @Test func wordTestAgreesWithTheByteTest() {
        let fast = (0...255).map(UInt8.init).filter {
            (0x26...0x7A).contains($0) && !"?`<>\\^".utf8.contains($0)
        }
        for position in 0..<8 {
            for value in 0...255 {
                var word = UInt64(0)
                for index in 0..<8 {
                    let byte = index == position ? UInt8(value) : fast[(value * 7 + index * 13) % fast.count]
                    word |= UInt64(byte) << (8 * index)
                }
                let marks = HeadParser.targetWordMarks(word)
                #expect((marks == 0) == fast.contains(UInt8(value)), "byte \(value) at \(position)")
                if marks == 0 {
                    #expect(HeadParser.isPlainTargetByte(UInt8(value)), "byte \(value) passes the word test only")
                } else {
                    #expect(marks.trailingZeroBitCount / 8 == position, "byte \(value) at \(position)")
                }
            }
        }
        // Words mixing several bytes of every kind (carries and borrows between bytes), from a fixed-seed generator.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let isFast = (0...255).map { fast.contains(UInt8($0)) }
        var plainWords = 0
        var wrong: [UInt64] = []
        for _ in 0..<200_000 {
            var word = UInt64(0)
            var expected = true
            var first = 8
            for index in 0..<8 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let draw = Int(state >> 33)
                let byte = draw % 16 == 0 ? UInt8(truncatingIfNeeded: draw >> 8) : fast[(draw >> 8) % fast.count]
                if !isFast[Int(byte)] && first == 8 { first = index }
                expected = expected && isFast[Int(byte)]
                word |= UInt64(byte) << (8 * index)
            }
            // All eight need no check, or the lowest mark is the first byte that needs one.
            let marks = HeadParser.targetWordMarks(word)
            if (marks == 0) != expected || (marks != 0 && marks.trailingZeroBitCount / 8 != first) {
                wrong.append(word)
            }
            if expected { plainWords += 1 }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5).map { String($0, radix: 16) })")
        #expect(plainWords > 50_000 && plainWords < 150_000)
    }
}
