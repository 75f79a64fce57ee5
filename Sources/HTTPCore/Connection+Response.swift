import Synchronization

/// Pre-rendered byte strings of the response path.
enum StatusLines {
    static let crlf: [UInt8] = [0x0D, 0x0A]
    static let continue100 = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    static let lastChunk = Array("0\r\n\r\n".utf8)
    static let contentLength = Array("Content-Length: ".utf8)
    static let chunked = Array("Transfer-Encoding: chunked\r\n".utf8)
    static let gzip = Array("Content-Encoding: gzip\r\n".utf8)
    static let vary = Array("Vary: Accept-Encoding\r\n".utf8)
    static let close = Array("Connection: close\r\n".utf8)
    static let keepAlive = Array("Connection: keep-alive\r\n".utf8)
    static let ok = Array("HTTP/1.1 200 OK\r\n".utf8)
    static let overLimit = Array(
        ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nContent-Length: 95\r\n"
            + "Connection: close\r\n\r\n"
            + "{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,\"code\":\"too_many_connections\"}")
            .utf8)

    private static let common: [Int: [UInt8]] = {
        var lines: [Int: [UInt8]] = [:]
        for code in [100, 200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308] + Array(400...431) + Array(500...505) {
            let reason = HTTPStatus.defaultReason(for: code)
            if !reason.isEmpty { lines[code] = Array("HTTP/1.1 \(code) \(reason)\r\n".utf8) }
        }
        return lines
    }()

    static func line(for status: HTTPStatus) -> [UInt8] {
        if status.code == 200 && status.reasonPhrase == "OK" { return ok }
        if let line = common[status.code], status.reasonPhrase == HTTPStatus.defaultReason(for: status.code) {
            return line
        }
        let reason = status.reasonPhrase.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F } ? status.reasonPhrase : ""
        return Array("HTTP/1.1 \(status.code) \(reason)\r\n".utf8)
    }
}

extension Connection {
    /// Serialises `response` for the request described by `info` into the output queue and updates the phase.
    /// Returns the head and body byte counts queued.
    @discardableResult
    func send(_ response: HTTPResponse, _ info: RequestInfo) -> (head: Int, body: Int) {
        let loop = self.loop
        var keepAlive = info.keepAlive && loop.keepsConnections
        let isHead = info.method == .head
        var status = response.status
        if status.code < 200 || status.code > 999 {
            loop.logger.error("handler returned invalid final status \(status.code) for \(info.method) \(info.target)")
            return send(HTTPError.genericInternal.makeResponse(), info)
        }
        for field in response.headers where field.name.utf8.count == 10 {
            if field.name.asciiCaseInsensitiveEquals("connection") && field.value.asciiCaseInsensitiveEquals("close") {
                keepAlive = false
            }
        }

        var preparedHead: [UInt8]?
        var storageBody: ByteStorage?
        var bytesBody: [UInt8]?
        var contentLength: Int?
        var gzip = false
        var preparedGzip = false
        var vary = false
        var chunked = false
        var stream: (@Sendable (HTTPBodyWriter) -> Void)?

        switch response.body {
        case .empty:
            contentLength = status.forbidsBody ? nil : 0
        case .bytes(let bytes):
            if !status.forbidsBody {
                var body = bytes
                let compression = loop.configuration.compression
                if compression.enabled && bytes.count >= compression.minimumSize
                    && !response.headers.contains("Content-Encoding")
                    && compression.isCompressible(contentType: response.headers["Content-Type"])
                {
                    vary = true
                    if AcceptEncoding.prefersGzip(info.headers["Accept-Encoding"]) {
                        body = bytes.withUnsafeBytes { loop.compressor.compress($0) }
                        gzip = true
                    }
                }
                contentLength = body.count
                if !isHead { bytesBody = body }
            }
        case .prepared(let prepared):
            let gzipVariant =
                AcceptEncoding.prefersGzip(info.headers["Accept-Encoding"]) ? prepared.gzipVariant() : nil
            if status.code == 200 && (info.method == .get || isHead),
                let ifNoneMatch = info.headers["If-None-Match"], prepared.matches(ifNoneMatch: ifNoneMatch)
            {
                status = .notModified
                preparedHead = gzipVariant?.notModifiedHead ?? prepared.identityNotModifiedHead
            } else if !status.forbidsBody {
                preparedGzip = gzipVariant != nil
                preparedHead = gzipVariant?.head ?? prepared.identityHead
                if !isHead { storageBody = gzipVariant?.storage ?? prepared.identity }
            }
        case .stream(let start):
            if !status.forbidsBody {
                if info.version.minor >= 1 { chunked = true } else { keepAlive = false }
                if !isHead { stream = start }
            }
        }

        // The whole head goes into the output arena in one step.
        let before = output.pendingBytes
        let dateLine = loop.date.line
        let serverLine = loop.serverLine
        var malformed: [String] = []
        output.withArena { head in
            head.append(contentsOf: StatusLines.line(for: status))
            head.append(contentsOf: dateLine)
            head.append(contentsOf: serverLine)
            if let preparedHead { head.append(contentsOf: preparedHead) }
            if let contentLength {
                head.append(contentsOf: StatusLines.contentLength)
                ByteFormatting.appendDecimal(contentLength, to: &head)
                head.append(contentsOf: StatusLines.crlf)
            }
            if chunked { head.append(contentsOf: StatusLines.chunked) }
            if gzip { head.append(contentsOf: StatusLines.gzip) }
            if vary { head.append(contentsOf: StatusLines.vary) }
            if let block = response.headerBlock { head.append(contentsOf: block.bytes) }
            if let requestID = response.requestID, !HTTPHeaderBlock.appendRequestID(requestID, to: &head) {
                malformed.append("X-Request-ID")
            }
            // User fields, unless the server manages them or they are malformed (HTTPHeaderBlock's rules).
            for field in response.headers {
                switch HTTPHeaderBlock.writability(field) {
                case .writable: HTTPHeaderBlock.append(field, to: &head)
                case .managed: break
                case .malformed: malformed.append(field.name)
                }
            }
            if info.version.minor >= 1 {
                if !keepAlive { head.append(contentsOf: StatusLines.close) }
            } else if keepAlive {
                head.append(contentsOf: StatusLines.keepAlive)
            }
            head.append(contentsOf: StatusLines.crlf)
        }
        for name in malformed { loop.logger.error("dropped malformed response header field \(name.debugDescription)") }
        let headLength = output.pendingBytes - before
        if let storageBody { output.append(storageBody) }
        if let bytesBody { output.append(bytesBody) }
        let bodyLength = output.pendingBytes - before - headLength

        loop.served.add(1, ordering: .relaxed)
        if loop.wantsAccessLog || response.observer != nil {
            let entry = HTTPAccessLogEntry(
                method: info.method, target: info.target, version: info.version, status: status.code,
                bodyBytes: bodyLength, gzip: gzip || preparedGzip, remoteAddress: info.remoteAddress,
                durationNanoseconds: info.start == 0 ? 0 : System.monotonicNanoseconds() &- info.start,
                route: response.route, requestID: response.requestID, loop: loop.index,
                annotations: response.annotations, requestHeaders: info.headers, trace: response.observer?.trace,
                startMonotonicNanoseconds: info.start)
            if loop.wantsAccessLog { loop.logger.access(entry) }
            response.observer?.responseSent(entry)
        }

        if let stream {
            phase = .waiting
            current = RequestInfo(
                method: info.method, version: info.version, keepAlive: keepAlive, headers: HTTPFields(),
                target: info.target, remoteAddress: info.remoteAddress, start: info.start)
            streamChunked = chunked
            let sequence = self.sequence
            let bound = LoopBound(value: self)
            let writer = HTTPBodyWriter { action in
                loop.execute { bound.value.streamAction(sequence, action) }
            }
            stream(writer)
        } else if !keepAlive {
            phase = .closing
        }
        return (headLength, bodyLength)
    }
}
