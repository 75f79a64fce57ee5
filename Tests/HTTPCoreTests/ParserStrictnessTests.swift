import Foundation
import HTTPTesting
import Testing

@testable import HTTPCore

/// Transfer-Encoding list forms, chunk extensions (RFC 9112 §7.1.1), empty Host and snake_case codes: the
/// strictness rules of `docs/http.md` that third-party conformance suites probe.
@Suite("HTTPParser strictness")
struct ParserStrictnessTests {
    typealias Case = ParserRejectionTests.Case

    static let host = "Host: example.com\r\n"

    static func chunked(_ body: String) -> String {
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n" + body
    }

    static func transferEncoding(_ value: String) -> String {
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: \(value)\r\n\r\n0\r\n\r\n"
    }

    static let cases: [Case] = [
        // Transfer-Encoding: a list whose last element is exactly `chunked`, no empty elements.
        Case(
            name: "TE leading comma", raw: transferEncoding(",chunked"), status: 400, code: "invalid_transfer_encoding"),
        Case(
            name: "TE trailing comma", raw: transferEncoding("chunked,"), status: 400, code: "invalid_transfer_encoding"
        ),
        Case(
            name: "TE empty elements", raw: transferEncoding(", ,chunked"), status: 400,
            code: "invalid_transfer_encoding"),
        Case(
            name: "TE empty middle element", raw: transferEncoding("gzip,,chunked"), status: 400,
            code: "invalid_transfer_encoding"),
        Case(name: "TE empty value", raw: transferEncoding(""), status: 400, code: "invalid_transfer_encoding"),
        Case(
            name: "TE empty second field line",
            raw: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nTransfer-Encoding:\r\n\r\n0\r\n\r\n",
            status: 400, code: "invalid_transfer_encoding"),
        Case(
            name: "TE chunked with a parameter", raw: transferEncoding("chunked;q=1"), status: 400,
            code: "invalid_transfer_encoding"),
        Case(
            name: "TE chunked twice", raw: transferEncoding("chunked, chunked"), status: 400, code: "chunked_not_last"),
        Case(name: "TE chunked first", raw: transferEncoding("chunked, gzip"), status: 400, code: "chunked_not_last"),
        Case(
            name: "TE other coding last", raw: transferEncoding("gzip"), status: 501,
            code: "unsupported_transfer_coding"),
        Case(
            name: "TE other coding then chunked", raw: transferEncoding("gzip, chunked"), status: 501,
            code: "unsupported_transfer_coding"),
        Case(
            name: "CL with TE",
            raw: "POST / HTTP/1.1\r\n\(host)Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
            status: 400, code: "content_length_with_transfer_encoding"),

        // Chunk extensions: *( BWS ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] ).
        Case(
            name: "ext without name", raw: chunked("5;\r\nhello\r\n0\r\n\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext name empty before =", raw: chunked("2;=x\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext unterminated quote", raw: chunked("2;a=\"\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext unterminated quote with text", raw: chunked("2;a=\"x y\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext value with space", raw: chunked("2;a=b c\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(name: "ext empty value", raw: chunked("2;a=\r\nhi\r\n"), status: 400, code: "invalid_chunk_extension"),
        Case(
            name: "ext trailing semicolon", raw: chunked("2;a=b;\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext trailing whitespace", raw: chunked("2;a=b \r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext name trailing whitespace", raw: chunked("2;a\t\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext name with separator", raw: chunked("2;a/b\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext value with separator", raw: chunked("2;a=b@c\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext value with control", raw: chunked("5;a=\u{1}\r\nhello\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext quoted control", raw: chunked("2;a=\"x\u{1}\"\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext quoted DEL", raw: chunked("2;a=\"x\u{7F}\"\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext quoted-pair of a control", raw: chunked("2;a=\"\\\u{1}\"\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(
            name: "ext junk after quoted value", raw: chunked("2;a=\"x\"y\r\nhi\r\n"), status: 400,
            code: "invalid_chunk_extension"),
        Case(name: "ext bare CR", raw: chunked("2;a\rb\r\nhi\r\n"), status: 400, code: "bare_cr"),
        Case(name: "size then junk", raw: chunked("2 x\r\nhi\r\n"), status: 400, code: "invalid_chunk_size"),
        Case(name: "size then whitespace", raw: chunked("2\t\r\nhi\r\n"), status: 400, code: "invalid_chunk_size"),
        Case(name: "last chunk with bad ext", raw: chunked("0;\r\n\r\n"), status: 400, code: "invalid_chunk_extension"),

        // Host: present, exactly once, and naming a host.
        Case(name: "empty Host", raw: "GET /x HTTP/1.1\r\nHost: \r\n\r\n", status: 400, code: "invalid_host"),
        Case(name: "empty Host, no space", raw: "GET /x HTTP/1.1\r\nHost:\r\n\r\n", status: 400, code: "invalid_host"),
        Case(
            name: "Host with port only", raw: "GET /x HTTP/1.1\r\nHost: :80\r\n\r\n", status: 400, code: "invalid_host"),
        Case(
            name: "empty Host in HTTP/1.0", raw: "GET /x HTTP/1.0\r\nHost: \r\n\r\n", status: 400, code: "invalid_host"),
        Case(
            name: "empty Host with absolute-form", raw: "GET http://example.com/x HTTP/1.1\r\nHost: \r\n\r\n",
            status: 400, code: "invalid_host"),
    ]

    @Test(arguments: cases)
    func rejects(_ testCase: Case) {
        testCase.expectRefused()
    }

    @Test(arguments: [
        "5;a\r\nhello\r\n", "5;a=b\r\nhello\r\n", "5 ;a=b\r\nhello\r\n", "5\t; a = b ;c\r\nhello\r\n",
        "5;a=\"\"\r\nhello\r\n", "5;a=\"q \\\"x\\\" \\\\ y\t!#[]~\"\r\nhello\r\n", "5;a=\"caf\u{E9}\"\r\nhello\r\n",
        "5;a=\"x;y=z\";b=c\r\nhello\r\n", "5;!#$%&'*+-.^_`|~=!#$%&'*+-.^_`|~\r\nhello\r\n",
    ])
    func acceptsValidChunkExtensions(_ chunk: String) throws {
        for byteByByte in [false, true] {
            let result = parseAll(Self.chunked(chunk + "0;last=\"yes\"\r\n\r\n"), byteByByte: byteByByte)
            #expect(result.error == nil, "\(chunk.debugDescription): \(String(describing: result.error))")
            let request = try #require(result.requests.first)
            #expect(request.body == Array("hello".utf8))
        }
    }

    @Test(arguments: ["chunked", "CHUNKED", "  chunked\t"])
    func acceptsChunkedAlone(_ value: String) {
        let result = parseAll(Self.transferEncoding(value))
        #expect(result.error == nil, "\(value.debugDescription): \(String(describing: result.error))")
        #expect(result.requests.count == 1)
    }

    @Test(arguments: ["h", "example.com:8080", "[::1]:8080", "127.0.0.1"])
    func acceptsHosts(_ value: String) throws {
        let request = try #require(parseAll("GET / HTTP/1.1\r\nHost: \(value)\r\n\r\n").requests.first)
        #expect(request.headers["Host"] == value)
    }

    /// The hand-written chunk-extension parser agrees with the RFC 9112 §7.1.1 grammar written as a regular
    /// expression, on 20,000 random lines over an alphabet of the grammar's delimiters, token characters and
    /// bytes it forbids (deterministic: a fixed-seed generator).
    @Test func chunkExtensionsAgreeWithTheGrammar() throws {
        let token = #"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"#
        let quoted = #""(?:[\t \x21\x23-\x5B\x5D-\x7E]|\\[\t \x21-\x7E])*""#
        let grammar = try Regex(
            #"^(?:[ \t]*;[ \t]*"# + token + #"(?:[ \t]*=[ \t]*(?:"# + token + "|" + quoted + "))?)*$")
        let alphabet: [Character] = [
            ";", ";", "=", "\"", "\\", " ", "\t", "x", "y", "!", "~", ",", "@", "/", "\u{1}", "\u{7F}",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var accepted = 0
        for _ in 0..<20_000 {
            let extensions = String((0..<next(13)).map { _ in alphabet[next(alphabet.count)] })
            let valid = extensions.wholeMatch(of: grammar) != nil
            let result = parseAll(Self.chunked("5" + extensions + "\r\nhello\r\n0\r\n\r\n"))
            #expect(
                (result.error == nil) == valid, "\(extensions.debugDescription): \(String(describing: result.error))")
            if valid {
                accepted += 1
                #expect(result.requests.first?.body == Array("hello".utf8))
            }
        }
        #expect(accepted > 500, "the alphabet produces valid extensions too")
    }

    /// Every refusal in the parser tables carries a stable snake_case code.
    @Test func everyCodeIsSnakeCase() throws {
        let pattern = try Regex("^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
        let codes = Set((ParserRejectionTests.cases + Self.cases + ParserAuthorityTests.cases).map(\.code))
        #expect(codes.count > 30)
        for code in codes.sorted() {
            #expect(code.wholeMatch(of: pattern) != nil, "\(code) is not snake_case")
        }
        #expect(HTTPError.badRequest().code == "bad_request")
        #expect(HTTPError.genericInternal.code == "internal_error")
    }
}

/// Strictness cases over a real socket: a problem+json answer with the code, then the connection closes.
@Suite("HTTPServer strictness (loopback)")
struct ServerStrictnessTests {
    struct Probe: CustomTestStringConvertible, Sendable {
        var name: String
        var raw: String
        var status: Int
        var code: String
        var testDescription: String { name }
    }

    static let probes: [Probe] = [
        Probe(
            name: "Transfer-Encoding ,chunked",
            raw: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: ,chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            status: 400, code: "invalid_transfer_encoding"),
        Probe(
            name: "chunk extension without a name",
            raw: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5;\r\nhello\r\n0\r\n\r\n",
            status: 400, code: "invalid_chunk_extension"),
        Probe(
            name: "unterminated quoted chunk extension",
            raw: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"\r\nhi\r\n0\r\n\r\n",
            status: 400, code: "invalid_chunk_extension"),
        Probe(name: "empty Host", raw: "GET /hello HTTP/1.1\r\nHost: \r\n\r\n", status: 400, code: "invalid_host"),
        Probe(
            name: "Content-Length with Transfer-Encoding",
            raw: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello",
            status: 400, code: "content_length_with_transfer_encoding"),
        Probe(
            name: "raw { in the target", raw: "GET /hello{ HTTP/1.1\r\nHost: t\r\n\r\n", status: 400,
            code: "invalid_target"),
        Probe(
            name: "raw | in the query", raw: "GET /hello?a|b HTTP/1.1\r\nHost: t\r\n\r\n", status: 400,
            code: "invalid_target"),
        Probe(name: "Host a:b", raw: "GET /hello HTTP/1.1\r\nHost: a:b\r\n\r\n", status: 400, code: "invalid_host"),
        Probe(name: "Host [::1", raw: "GET /hello HTTP/1.1\r\nHost: [::1\r\n\r\n", status: 400, code: "invalid_host"),
        Probe(
            name: "Host port 65536", raw: "GET /hello HTTP/1.1\r\nHost: t:65536\r\n\r\n", status: 400,
            code: "invalid_host"),
        Probe(
            name: "Host in the trailers",
            raw:
                "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nHost: evil\r\n\r\n",
            status: 400, code: "forbidden_trailer"),
        Probe(
            name: "Content-Length in the trailers",
            raw: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
                + "Content-Length: 5\r\n\r\n",
            status: 400, code: "forbidden_trailer"),
    ]

    @Test(arguments: probes)
    func refusesWithAProblem(_ probe: Probe) async throws {
        try await withServer(responder: testRouter) { server in
            let client = HTTPTestClient(port: server.port)
            try await client.send(probe.raw)
            let response = try #require(try await client.readResponse())
            #expect(response.status == probe.status)
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.headers["Connection"] == "close")
            let problem = try #require(
                try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(problem["code"] as? String == probe.code)
            #expect(problem["status"] as? Int == probe.status)
            #expect(try await client.isClosedByPeer())
            // The server is unharmed: a well-formed request on a new connection is answered.
            let next = HTTPTestClient(port: server.port)
            try await next.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await next.readResponse()?.text == "hello")
        }
    }
}
