import Testing

@testable import HTTPCore

@Suite("Content negotiation, ETags, helpers")
struct NegotiationTests {
    static let acceptEncodingCases: [(String?, Bool)] = [
        (nil, false),
        ("", false),
        ("gzip", true),
        ("GZIP", true),
        ("x-gzip", true),
        ("gzip, deflate, br", true),
        ("deflate, br", false),
        ("br;q=1.0, gzip;q=0.8, *;q=0.1", true),
        ("gzip;q=0", false),
        ("gzip; q=0.000", false),
        ("*", true),
        ("*;q=0", false),
        ("identity", false),
        ("identity;q=0, gzip;q=0.1", true),
        ("gzip;q=0.5, identity;q=1", false),
        ("gzip;q=0.5, identity;q=0.5", true),
        ("gzip;q=2", false),
        ("gzip;q=abc", false),
        ("*;q=0.3, identity;q=0.2", true),
        (" , gzip ,", true),
        ("gzip;q=0.8", true),
        ("identity;q=0.9, gzip;q=0.8", false),
    ]

    @Test(arguments: acceptEncodingCases)
    func acceptEncoding(_ value: String?, _ expected: Bool) {
        #expect(AcceptEncoding.prefersGzip(value) == expected, "\(String(describing: value))")
    }

    @Test func etagMatching() {
        let tag = "\"abc\""
        #expect(ETagMatcher.matches("\"abc\"", tag))
        #expect(ETagMatcher.matches("W/\"abc\"", tag))
        #expect(ETagMatcher.matches("\"x\", \"abc\"", tag))
        #expect(ETagMatcher.matches("*", tag))
        #expect(!ETagMatcher.matches("\"abd\"", tag))
        #expect(!ETagMatcher.matches("abc", tag))
    }

    @Test func preparedBodyVariants() throws {
        let json = Array(String(repeating: "{\"k\":\"value\"},", count: 200).utf8)
        let body = PreparedBody(json, contentType: "application/json")
        let gzip = try #require(body.gzipBytes)
        #expect(gzip.count < json.count)
        #expect(Gzip.decompress(gzip) == json)
        #expect(body.matches(ifNoneMatch: body.etag))
        #expect(body.matches(ifNoneMatch: try #require(body.gzipETag)))
        #expect(!body.matches(ifNoneMatch: "\"other\""))
        let tiny = PreparedBody(Array("a".utf8), contentType: "text/plain")
        #expect(tiny.gzipBytes == nil)
    }

    /// A lazily prepared body compresses on the first request for gzip, once, and says from the start that it varies.
    @Test func lazyGzipIsMadeOnFirstUse() throws {
        let json = Array(String(repeating: "{\"k\":\"value\"},", count: 200).utf8)
        let body = PreparedBody(json, contentType: "application/json", lazily: true)
        #expect(String(decoding: body.identityHead, as: UTF8.self).contains("Vary: Accept-Encoding"))
        #expect(body.gzipETag == body.etag.dropLast() + "-gz\"")
        let variant = try #require(body.gzipVariant())
        #expect(Gzip.decompress(variant.storage.bytes) == json)
        #expect(String(decoding: variant.head, as: UTF8.self).contains("Content-Encoding: gzip"))
        #expect(body.gzipVariant()?.storage === variant.storage, "compressed once")
        let tiny = PreparedBody(Array("a".utf8), contentType: "text/plain", lazily: true)
        #expect(tiny.gzipVariant() == nil, "a gzip variant that is not smaller is not sent")
        #expect(tiny.gzipBytes == nil)
    }

    @Test func gzipRoundTrip() {
        let input = Array((0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7 % 13) })
        #expect(Gzip.decompress(Gzip.compress(input, level: 1)) == input)
        #expect(Gzip.decompress(Array("not gzip".utf8)) == nil)
    }

    @Test func percentDecoding() {
        #expect(PercentDecoding.decode("a%20b") == "a b")
        #expect(PercentDecoding.decode("a+b", plusAsSpace: true) == "a b")
        #expect(PercentDecoding.decode("a+b") == "a+b")
        #expect(PercentDecoding.decode("%zz") == nil)
        #expect(PercentDecoding.decode("%e2%82%ac") == "\u{20AC}")
        #expect(PercentDecoding.decode("%ff") == nil)
    }

    @Test func fields() {
        var fields: HTTPFields = ["Content-Type": "a", "X-A": "1"]
        fields.append("x-a", "2")
        #expect(fields.values(for: "X-A") == ["1", "2"])
        fields.set("X-a", "3")
        #expect(fields.values(for: "x-A") == ["3"])
        fields["content-type"] = nil
        #expect(!fields.contains("Content-Type"))
        #expect(HTTPFields([("Connection", "keep-alive, Close")]).containsToken("close", in: "connection"))
        // Two names in one pass: the first field of each, any case, either order, either missing.
        let request = HTTPFields([
            ("accept", "*/*"), ("user-agent", "App/2"), ("HOST", "a:1"), ("Host", "b:2"), ("User-Agent", "App/3"),
        ])
        #expect(request.firstValues("Host", "User-Agent") == ("a:1", "App/2"))
        #expect(request.firstValues("User-Agent", "Host") == ("App/2", "a:1"))
        #expect(request.firstValues("Host", "X-Missing") == ("a:1", nil))
        #expect(HTTPFields().firstValues("Host", "User-Agent") == (nil, nil))
        #expect(HTTPFields([("Hos", "x"), ("Hostt", "y")]).firstValues("Host", "User-Agent") == (nil, nil))
    }

    @Test func problemJSON() {
        let response = HTTPError(.notFound, code: "page_not_found", detail: "No \"x\"\n").makeResponse()
        #expect(response.status == .notFound)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        guard case .bytes(let bytes) = response.body else {
            Issue.record("expected bytes")
            return
        }
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404,\"detail\":\"No \\\"x\\\"\\n\",\"code\":\"page_not_found\"}"
        )
    }

    @Test func httpDateFormat() {
        #expect(HTTPDateCache.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func decimalAndHexFormatting() {
        for value in [0, 7, 10, 99, 12345, Int(Int32.max)] {
            var bytes: [UInt8] = []
            ByteFormatting.appendDecimal(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
            bytes = []
            ByteFormatting.appendHex(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value, radix: 16))
        }
    }

    @Test func fixedWidthHexDigits() {
        var generator = SystemRandomNumberGenerator()
        let values: [UInt64] =
            [0, 9, 10, 15, 0xABCD_EF01_2345_6789, 0x0F0F_F0F0_9A9A_A9A9, .max] + (0..<200).map { _ in generator.next() }
        for value in values {
            for digits in [16, 8, 4] {
                let bytes = [UInt8](unsafeUninitializedCapacity: digits) { buffer, count in
                    ByteFormatting.writeHex(value, digits: digits, to: buffer.baseAddress!)
                    count = digits
                }
                let low = digits == 16 ? value : value & ((1 << UInt64(digits * 4)) - 1)
                let expected =
                    String(repeating: "0", count: digits - String(low, radix: 16).count) + String(low, radix: 16)
                #expect(String(decoding: bytes, as: UTF8.self) == expected, "\(value) in \(digits) digits")
            }
        }
    }
}

@Suite("Router")
struct RouterTests {
    static var router: Router {
        var router = Router()
        router.get("/v1/pages/{pageID}/next") { request in .text("next:\(request.pathParameters["pageID"] ?? "")") }
        router.get("/v1/pages/home") { _ in .text("home") }
        router.post("/v1/pages/{pageID}/next") { _ in .text("posted") }
        router.get("/fail") { _ in throw HTTPError(.conflict, code: "busy") }
        router.get("/v1/{a}/b/{c}") { request in
            .text(
                "\(request.pathParameters["a"] ?? "-") \(request.pathParameters["c"] ?? "-") \(request.pathParameters.count)"
            )
        }
        router.delete("/v1/pages/home") { _ in .text("deleted") }
        return router
    }

    func text(_ reply: HTTPReply) -> String? {
        guard case .response(let response) = reply, case .bytes(let bytes) = response.body else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func matchesParametersAndLiterals() throws {
        #expect(
            text(try Self.router.respond(to: HTTPRequest(method: .get, target: "/v1/pages/a%20b/next"))) == "next:a b")
        #expect(text(try Self.router.respond(to: HTTPRequest(method: .get, target: "/v1/pages/home"))) == "home")
        #expect(text(try Self.router.respond(to: HTTPRequest(method: .post, target: "/v1/pages/x/next"))) == "posted")
        #expect(text(try Self.router.respond(to: HTTPRequest(method: .head, target: "/v1/pages/x/next?q"))) == "next:x")
        #expect(text(try Self.router.respond(to: HTTPRequest(method: .get, target: "/v1/x/b/y%21"))) == "x y! 2")
        // A literal route with another method registered under the same path keeps both.
        #expect(text(try Self.router.respond(to: HTTPRequest(method: .delete, target: "/v1/pages/home"))) == "deleted")
        #expect(text(try Self.router.respond(to: HTTPRequest(method: .head, target: "/v1/pages/home"))) == "home")
    }

    @Test func pathParameters() {
        var parameters: PathParameters = ["a": "1", "b": "2"]
        #expect(parameters["a"] == "1" && parameters["b"] == "2" && parameters["c"] == nil)
        #expect(parameters == ["b": "2", "a": "1"])
        #expect(parameters != ["a": "1"])
        parameters["a"] = "3"
        parameters["b"] = nil
        #expect(parameters == ["a": "3"])
        #expect(parameters.count == 1)
        #expect(PathParameters().isEmpty)
        #expect(parameters.description == "[a: 3]")
    }

    @Test func notFoundAndMethodNotAllowed() {
        #expect(throws: HTTPError.self) { try Self.router.respond(to: HTTPRequest(method: .get, target: "/nope")) }
        do {
            _ = try Self.router.respond(to: HTTPRequest(method: .delete, target: "/v1/pages/x/next"))
            Issue.record("expected 405")
        } catch let error as HTTPError {
            #expect(error.status == .methodNotAllowed)
            #expect(error.headers["Allow"] == "GET, HEAD, POST")
        } catch {
            Issue.record("unexpected \(error)")
        }
        do {
            _ = try Self.router.respond(to: HTTPRequest(method: .put, target: "/v1/pages/home"))
            Issue.record("expected 405")
        } catch let error as HTTPError {
            #expect(error.headers["Allow"] == "DELETE, GET, HEAD")
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(throws: HTTPError.self) {
            try Self.router.respond(to: HTTPRequest(method: .get, target: "/v1/pages//next"))
        }
    }
}

@Suite struct HeaderBlockTests {
    @Test func serializesWellFormedFieldsAndDropsManagedAndMalformedOnes() {
        let block = HTTPHeaderBlock(
            HTTPFields([
                ("Cache-Control", "public, max-age=300"), ("content-length", "12"), ("Bad Name", "x"),
                ("Vary", "X-Flow-Client"), ("X-Split", "a\r\nInjected: yes"), ("Date", "now"), ("X-Tab", "a\tb"),
            ]))
        #expect(
            String(decoding: block.bytes, as: UTF8.self)
                == "Cache-Control: public, max-age=300\r\nVary: X-Flow-Client\r\nX-Tab: a\tb\r\n")
        #expect(block.droppedFieldNames == ["content-length", "Bad Name", "X-Split", "Date"])
    }

    @Test func caseInsensitiveComparisonChecksLengthAndBytes() {
        #expect("Content-Length".asciiCaseInsensitiveEquals("content-length"))
        #expect(!"Content-Length".asciiCaseInsensitiveEquals("content-lengths"))
        #expect(!"Host".asciiCaseInsensitiveEquals("Hose"))
        #expect("Host"[...].asciiCaseInsensitiveEquals("hOST"))
        #expect("".asciiCaseInsensitiveEquals(""))
    }
}
