import FuzzSupport
import HTTPCore

/// libFuzzer target for the incremental HTTP/1.1 request parser (``HTTPParser``).
///
/// Input: one selector byte, then raw bytes as a client would send them. The selector picks the limits (the
/// defaults, or small ones so the limit checks are reachable) and the size of the pieces the bytes arrive in.
/// Properties checked on every input, besides "never traps, never overflows":
/// - fed in pieces, the parser produces the same requests as fed all at once, and fails if and only if it does;
/// - every request respects the limits (body size, header count);
/// - each `next()` call makes progress: the number of events is bounded by the number of bytes;
/// - what HTTPCore reads from a parsed request (query items, `Accept-Encoding`, `If-None-Match`) never traps, and
///   looking up one query item agrees with listing them all.
enum HTTPParserFuzzTarget {
    static let smallLimits: HTTPParser.Limits = {
        var limits = HTTPParser.Limits()
        limits.maxRequestLineLength = 64
        limits.maxHeaderFieldLength = 96
        limits.maxHeaderSectionSize = 512
        limits.maxHeaderCount = 8
        limits.maxBodySize = 256
        limits.maxChunkLineLength = 16
        return limits
    }()

    /// What one parse produced, in a comparable form.
    struct Outcome: Equatable {
        var requests: [String] = []
        var errorCode: String?
        var expectContinues = 0
    }

    static func run(_ buffer: UnsafeRawBufferPointer) {
        var input = FuzzInput(buffer)
        let selector = input.byte()
        let limits = selector & 0x80 == 0 ? HTTPParser.Limits() : smallLimits
        let pieceSize = Int(selector & 0x0F) + 1
        let bytes = Array(input.rest)

        let whole = parse([bytes[...]], limits: limits)
        let pieces = stride(from: 0, to: bytes.count, by: pieceSize).map {
            bytes[$0..<min($0 + pieceSize, bytes.count)]
        }
        let split = parse(pieces, limits: limits)
        // Which error is reported may depend on arrival (a line over the limit is rejected before its end is seen,
        // where a complete one would fail on its bare LF first); whether the input fails may not.
        fuzzCheck(
            whole.requests == split.requests && (whole.errorCode == nil) == (split.errorCode == nil),
            "pieces of \(pieceSize) bytes parse differently: \(whole) vs \(split)")
    }

    static func parse(_ pieces: [ArraySlice<UInt8>], limits: HTTPParser.Limits) -> Outcome {
        var parser = HTTPParser(limits: limits)
        var outcome = Outcome()
        let byteCount = pieces.reduce(0) { $0 + $1.count }
        var events = 0
        for piece in pieces {
            parser.append(piece)
            while true {
                let event: HTTPParser.Event?
                do {
                    event = try parser.next()
                } catch {
                    fuzzCheck(
                        (400...599).contains(error.status.code) && !error.code.isEmpty,
                        "a parse error is a 4xx/5xx with a code: \(error)")
                    outcome.errorCode = error.code
                    return outcome
                }
                guard let event else { break }
                events += 1
                fuzzCheck(events <= byteCount + 1, "more events (\(events)) than bytes (\(byteCount))")
                switch event {
                case .expectContinue:
                    outcome.expectContinues += 1
                case .request(let request):
                    fuzzCheck(request.body.count <= limits.maxBodySize, "body of \(request.body.count) bytes")
                    fuzzCheck(request.headers.count <= limits.maxHeaderCount, "\(request.headers.count) fields")
                    outcome.requests.append(describe(request))
                    interpret(request)
                }
            }
        }
        return outcome
    }

    /// What HTTPCore reads from a request before any application sees it: query items, content negotiation and
    /// conditional requests. `queryItem(_:)` (one item, decoded lazily) must agree with `queryItems` (all of them).
    static func interpret(_ request: HTTPRequest) {
        let items = request.queryItems
        for (index, item) in items.enumerated().prefix(8)
        where !items[..<index].contains(where: { $0.name == item.name }) {
            let single = request.queryItem(item.name)
            fuzzCheck(
                single == item.value,
                "queryItem(\"\(item.name)\") is \(String(describing: single)), not \"\(item.value)\"")
        }
        _ = AcceptEncoding.prefersGzip(request.headers["Accept-Encoding"])
        if let ifNoneMatch = request.headers["If-None-Match"] {
            _ = ETagMatcher.matches(ifNoneMatch, "\"5f3a-1c\"")
            _ = ETagMatcher.matches(ifNoneMatch, "W/\"5f3a-1c\"")
        }
        _ = request.headers.containsToken("close", in: "Connection")
    }

    static func describe(_ request: HTTPRequest) -> String {
        let fields = request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        let trailers = request.trailers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        return "\(request.method) \(request.target) \(request.version)\n\(fields)\n\n\(request.body)\n\(trailers)"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    HTTPParserFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FLOW_BFF_FUZZING
    @main
    enum Replay {
        static func main() { FuzzReplay.main(HTTPParserFuzzTarget.run) }
    }
#endif
