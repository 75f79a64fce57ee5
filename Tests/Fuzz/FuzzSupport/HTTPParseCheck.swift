import HTTPCore

/// What the HTTP fuzz targets check of ``HTTPParser``: the requests (or the error) a sequence of pieces parses to,
/// with the properties every parse must keep (bounded events, limits respected, what HTTPCore reads from a request
/// never traps). Shared by `fuzz-http-parser` and `fuzz-http-over-tls`.
public enum HTTPParseCheck {
    public static let smallLimits: HTTPParser.Limits = {
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
    public struct Outcome: Equatable, Sendable {
        public var requests: [String] = []
        public var errorCode: String?
        public var expectContinues = 0
    }

    public static func parse(_ pieces: [ArraySlice<UInt8>], limits: HTTPParser.Limits) -> Outcome {
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
    public static func interpret(_ request: HTTPRequest) {
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

    public static func describe(_ request: HTTPRequest) -> String {
        let fields = request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        let trailers = request.trailers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        return "\(request.method) \(request.target) \(request.version)\n\(fields)\n\n\(request.body)\n\(trailers)"
    }
}
