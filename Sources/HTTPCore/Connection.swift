#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the connection remembers about the request being answered.
struct RequestInfo {
    var method: HTTPMethod
    var version: HTTPVersion
    var keepAlive: Bool
    var headers: HTTPFields
    var target: String
    var remoteAddress: String?
    var start: UInt64

    static func forError(remoteAddress: String?) -> RequestInfo {
        RequestInfo(
            method: .get, version: .http11, keepAlive: false, headers: HTTPFields(), target: "",
            remoteAddress: remoteAddress, start: 0)
    }
}

/// One client connection: a thin I/O shell around ``HTTPParser`` and ``OutputQueue``, confined to its loop.
final class Connection {
    enum Phase {
        /// Parsing and answering requests.
        case reading
        /// A deferred reply, streamed body or drip is in progress; later requests wait.
        case waiting
        /// Close once the output is flushed.
        case closing
        /// Write side shut down; discarding input until EOF or the linger deadline.
        case lingering
        case closed
    }

    enum DeadlineKind {
        case none
        case header
        case body
        case idle
        case write
        case linger
    }

    static let outputHighWater = 1024 * 1024
    static let lingerTime: UInt64 = 2_000_000_000

    let fd: Int32
    /// The loop that owns this connection. `unowned(unsafe)`: the loop outlives every call into its connections
    /// (they run on its thread, or in closures that hold the loop strongly), and a checked `unowned` reference costs
    /// an atomic retain and release on every use.
    unowned(unsafe) let loop: EventLoop
    let remoteAddress: String?
    /// The TLS session of an HTTPS connection; `nil` for cleartext. Every read and write goes through it.
    let tls: TLSSession?
    /// The parser and the output queue, in memory of their own: every request mutates them several times, and as
    /// stored properties of a class each access would go through the runtime's dynamic exclusivity check (a
    /// thread-local access set). A connection is confined to its loop's thread, so there is nothing for the check
    /// to catch; the compiler's static checks still apply to the code below.
    private struct Buffers {
        var parser: HTTPParser
        var output = OutputQueue()
    }
    private let buffers: UnsafeMutablePointer<Buffers>

    var parser: HTTPParser {
        _read { yield buffers.pointee.parser }
        _modify { yield &buffers.pointee.parser }
    }

    var output: OutputQueue {
        _read { yield buffers.pointee.output }
        _modify { yield &buffers.pointee.output }
    }
    var phase = Phase.reading
    var requestsServed = 0
    /// Incremented for every request; stale deferred completions are ignored.
    var sequence: UInt64 = 0
    var current: RequestInfo?
    var deadlineKind = DeadlineKind.header
    var deadline: UInt64
    var interest: Readiness = .readable
    /// When the connection was accepted (loop clock), for ``HTTPServer/Configuration/Timeouts/maximumConnectionAge``.
    let acceptedAt: UInt64
    /// Set for a connection accepted over ``HTTPServer/Configuration/Limits/maxConnections`` into a reserved slot:
    /// it answers one request, and only when its path is one of ``HTTPServer/Configuration/Limits/reservedPaths``.
    var reserved = false
    var peerClosed = false
    var lingerOnClose = false
    var streamChunked = false
    var drip: (bytes: [UInt8], offset: Int, chunkSize: Int, interval: UInt64)?

    init(fd: Int32, loop: EventLoop, remoteAddress: String?, tls: TLSSession? = nil) {
        self.fd = fd
        self.loop = loop
        self.remoteAddress = remoteAddress
        self.tls = tls
        buffers = .allocate(capacity: 1)
        buffers.initialize(to: Buffers(parser: HTTPParser(limits: loop.configuration.limits)))
        self.deadline = loop.now &+ loop.headerTimeout
        self.acceptedAt = loop.now
    }

    deinit {
        buffers.deinitialize(count: 1)
        buffers.deallocate()
    }

    /// No request in progress and nothing to send.
    var isIdle: Bool { phase == .reading && parser.isAtRequestBoundary && output.isEmpty }

    // MARK: Events

    func handle(_ readiness: Readiness) {
        if readiness.contains(.error) {
            close()
            return
        }
        if let tls, !tls.handshakeDone {
            continueHandshake(tls)
            return
        }
        // OpenSSL may want the other direction: a read that waits for writability, a write for readability.
        if let tls, tls.readWantsWritable, readiness.contains(.writable) {
            onReadable()
            if phase == .closed { return }
        }
        if let tls, tls.writeWantsReadable, readiness.contains(.readable) {
            onWritable()
            if phase == .closed { return }
        }
        if readiness.contains(.writable) {
            onWritable()
            if phase == .closed { return }
        }
        if !readiness.isDisjoint(with: [.readable, .hangup]) {
            if !interest.contains(.readable) {
                // Hang-up while not reading (deferred reply pending): the peer is gone.
                if readiness.contains(.hangup) { close() }
                return
            }
            onReadable()
        }
    }

    /// Drives a TLS handshake: the socket's readiness OpenSSL asks for is the connection's interest until it is
    /// done. A stalled handshake is bounded by the header timeout (the connection has served no request yet).
    private func continueHandshake(_ tls: TLSSession) {
        let wanted: Readiness
        switch tls.handshake() {
        case .bytes:
            // Done: the request may already be buffered behind the handshake's last record.
            wanted = .readable
            if interest != wanted {
                interest = wanted
                loop.setInterest(self, wanted)
            }
            onReadable()
            return
        case .wantRead: wanted = .readable
        case .wantWrite: wanted = .writable
        case .closed, .failed:
            // A client that does not trust the certificate, speaks cleartext or gives up: nothing to answer.
            close()
            return
        }
        if interest != wanted {
            interest = wanted
            loop.setInterest(self, wanted)
        }
    }

    /// Reads what the socket (or, under TLS, the session) has: a byte count, `0` at the peer's end, `nil` for
    /// nothing now or a failed connection (then closed).
    private func readInput() -> Int? {
        if let tls {
            switch tls.read(loop.readBuffer) {
            case .bytes(let count): return count
            case .closed: return 0
            case .wantRead, .wantWrite: return nil
            case .failed:
                close()
                return nil
            }
        }
        do {
            guard case .processed(let count) = try System.read(fd, loop.readBuffer.baseAddress!, loop.readBuffer.count)
            else { return nil }
            return count
        } catch {
            close()
            return nil
        }
    }

    private func onReadable() {
        guard let count = readInput() else { return }
        if phase == .lingering {
            if count == 0 { close() }
            return
        }
        if count == 0 {
            peerClosed = true
            if phase == .reading {
                processRequests()
            } else {
                updateInterest()
            }
            return
        }
        parser.append(UnsafeRawBufferPointer(start: loop.readBuffer.baseAddress, count: count))
        if phase == .reading { processRequests() } else { updateInterest() }
    }

    private func onWritable() {
        let before = output.pendingBytes
        flush()
        guard phase != .closed else { return }
        if output.pendingBytes < before { deadline = loop.now &+ loop.writeTimeout }
        if phase == .reading && output.pendingBytes < Connection.outputHighWater && parser.bufferedByteCount > 0 {
            processRequests()
        }
    }

    // MARK: Requests

    /// Parses and answers buffered requests in order until more bytes are needed or the connection waits.
    func processRequests() {
        while phase == .reading && output.pendingBytes < Connection.outputHighWater {
            let progress: HTTPParser.Progress?
            do {
                progress = try parser.advance()
            } catch {
                lingerOnClose = true
                send(error.makeResponse(), RequestInfo.forError(remoteAddress: remoteAddress))
                break
            }
            guard let progress else { break }
            switch progress {
            case .expectContinue:
                output.append(StatusLines.continue100)
            case .request:
                handle(parser.takeRequest())
            }
        }
        if phase == .reading && peerClosed { phase = .closing }
        flush()
    }

    /// Answers `request`, which is handed on to the responder (moved, not copied).
    private func handle(_ request: consuming HTTPRequest) {
        request.remoteAddress = remoteAddress
        sequence &+= 1
        requestsServed += 1
        if reserved && !loop.configuration.limits.reservedPaths.contains(request.path) {
            perform(
                .response(HTTPError.tooManyConnections.makeResponse()),
                RequestInfo.forError(remoteAddress: remoteAddress))
            return
        }
        let info = RequestInfo(
            method: request.method, version: request.version,
            keepAlive: request.wantsKeepAlive && requestsServed < loop.configuration.limits.maxRequestsPerConnection
                && loop.keepsConnections && !reserved
                && (loop.maximumAge == 0 || loop.now &- acceptedAt < loop.maximumAge),
            headers: request.headers, target: loop.wantsAccessLog ? request.target : "",
            // The duration starts when the loop woke up for the bytes of this request (the clock is read once per
            // batch of events): a request answered after others of the same batch counts its wait too.
            remoteAddress: remoteAddress, start: loop.wantsAccessLog ? loop.now : 0)
        // The reply goes straight into `perform` (a `let` assigned in both branches would be copied there).
        do {
            perform(try loop.responder.respond(to: request), info)
        } catch {
            perform(.response(errorResponse(error, info)), info)
        }
    }

    func errorResponse(_ error: any Error, _ info: RequestInfo) -> HTTPResponse {
        if let error = error as? any HTTPResponseConvertible { return error.makeResponse() }
        loop.logger.error("handler failed for \(info.method) \(info.target): \(error)")
        return HTTPError.genericInternal.makeResponse()
    }

    private func perform(_ reply: consuming HTTPReply, _ info: RequestInfo) {
        switch consume reply {
        case .response(let response):
            send(response, info)
        case .deferred(let start):
            let complete = waitForReply(info)
            let loop = self.loop
            start(HTTPPromise { result in loop.execute { complete(result) } })
        case .task(let work):
            let complete = waitForReply(info)
            let loop = self.loop
            Task(executorPreference: loop) {
                let result: Result<HTTPReply, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                // Still on the loop (a job never runs inside a connection's event): send now.
                if loop.isCurrent { complete(result) } else { loop.execute { complete(result) } }
            }
        case .fault(let fault):
            perform(fault, info)
        }
    }

    /// Puts the connection in the waiting phase for the reply to `info`'s request; the returned function completes
    /// it, on the loop thread only (a completion for an earlier request, or after the connection moved on, is
    /// ignored).
    private func waitForReply(_ info: RequestInfo) -> @Sendable (Result<HTTPReply, any Error>) -> Void {
        phase = .waiting
        current = info
        let sequence = self.sequence
        let bound = LoopBound(value: self)
        return { result in bound.value.completeDeferred(sequence, result) }
    }

    private func completeDeferred(_ sequence: UInt64, _ result: Result<HTTPReply, any Error>) {
        guard phase == .waiting, sequence == self.sequence, let info = current, drip == nil else { return }
        phase = .reading
        current = nil
        switch result {
        case .success(let reply): perform(reply, info)
        case .failure(let error): send(errorResponse(error, info), info)
        }
        resume()
    }

    /// Continues after a deferred reply, stream or drip finished.
    private func resume() {
        if phase == .reading {
            processRequests()
        } else {
            flush()
        }
    }

    // MARK: Faults

    private func perform(_ fault: HTTPFault, _ info: RequestInfo) {
        switch fault {
        case .reset:
            flush()
            guard phase != .closed else { return }
            try? System.setOption(fd, SOL_SOCKET, SO_LINGER, linger(l_onoff: 1, l_linger: 0))
            // No close_notify: the client must see the reset, not an orderly end of the TLS stream.
            close(abortive: true)
        case .closeWithoutResponse:
            phase = .closing
        case .truncate(let response, let afterBytes):
            var noGzip = info
            noGzip.headers.remove("Accept-Encoding")
            noGzip.keepAlive = false
            let before = output.pendingBytes
            let (head, _) = send(response, noGzip)
            output.truncate(toPending: before + head + max(afterBytes, 0))
            phase = .closing
        case .drip(let response, let chunkSize, let interval):
            // Render the whole response, then release it `chunkSize` bytes per `interval`.
            var pending = OutputQueue()
            swap(&pending, &output)
            _ = send(response, info)
            let after = phase
            let bytes = output.drain()
            swap(&pending, &output)
            phase = .waiting
            current = info
            drip = (bytes, 0, max(chunkSize, 1), interval.nanoseconds)
            dripNext(sequence: sequence, finalPhase: after)
        }
    }

    private func dripNext(sequence: UInt64, finalPhase: Phase) {
        guard phase == .waiting, sequence == self.sequence, var state = drip else { return }
        let end = min(state.offset + state.chunkSize, state.bytes.count)
        output.append(state.bytes[state.offset..<end])
        state.offset = end
        if end == state.bytes.count {
            drip = nil
            current = nil
            phase = finalPhase == .closing ? .closing : .reading
            resume()
            return
        }
        drip = state
        flush()
        loop.schedule(after: state.interval) { [weak self] in
            self?.dripNext(sequence: sequence, finalPhase: finalPhase)
        }
    }

    // MARK: Streams

    func streamAction(_ sequence: UInt64, _ action: HTTPBodyWriter.Action) {
        guard phase == .waiting, sequence == self.sequence, let info = current else { return }
        switch action {
        case .write(let bytes):
            if streamChunked {
                output.appendHex(bytes.count)
                output.append(StatusLines.crlf)
                output.append(bytes)
                output.append(StatusLines.crlf)
            } else {
                output.append(bytes)
            }
            flush()
        case .finish:
            current = nil
            if streamChunked {
                output.append(StatusLines.lastChunk)
                phase = info.keepAlive ? .reading : .closing
            } else {
                phase = .closing
            }
            resume()
        case .abort:
            close()
        }
    }

    // MARK: Output, deadlines, closing

    /// Writes pending output; closes when done and closing.
    func flush() {
        if !output.isEmpty {
            do {
                _ = try writeOutput()
            } catch {
                close()
                return
            }
        }
        if output.isEmpty && phase == .closing {
            finishClosing()
            return
        }
        updateInterest()
        updateDeadline()
    }

    private func finishClosing() {
        if lingerOnClose && !peerClosed {
            // Half-close and drain, so a client still sending (e.g. a refused body) reads our answer
            // instead of a reset (RFC 9112 §9.6).
            tls?.notifyClose()
            try? System.shutdown(fd, Int32(SHUT_WR))
            phase = .lingering
            deadlineKind = .linger
            deadline = loop.now &+ Connection.lingerTime
            updateInterest()
        } else {
            close()
        }
    }

    func updateInterest() {
        guard phase != .closed else { return }
        var wanted: Readiness = []
        // While a deferred answer is computed, reading goes on until bytes arrive (a pipelined request, or the
        // peer's close): no interest change per deferred request, and at most one read buffer is taken in before
        // reading pauses.
        let reading =
            (phase == .reading && !peerClosed && output.pendingBytes < Connection.outputHighWater)
            || (phase == .waiting && !peerClosed && parser.bufferedByteCount == 0 && output.isEmpty)
            || phase == .lingering
        if reading { wanted.insert(.readable) }
        if !output.isEmpty { wanted.insert(.writable) }
        if let tls {
            if tls.readWantsWritable && reading { wanted.insert(.writable) }
            if tls.writeWantsReadable && !output.isEmpty { wanted.insert(.readable) }
        }
        if wanted != interest {
            interest = wanted
            loop.setInterest(self, wanted)
        }
    }

    private func updateDeadline() {
        let now = loop.now
        func set(_ kind: DeadlineKind, _ timeout: UInt64) {
            if deadlineKind != kind {
                deadlineKind = kind
                deadline = now &+ timeout
            }
        }
        switch phase {
        case .closed, .lingering:
            return
        case .waiting:
            if output.isEmpty { deadlineKind = .none } else { set(.write, loop.writeTimeout) }
        case .closing:
            set(.write, loop.writeTimeout)
        case .reading:
            if !output.isEmpty {
                set(.write, loop.writeTimeout)
            } else if parser.isReadingBody {
                set(.body, loop.bodyTimeout)
            } else if parser.isAtRequestBoundary {
                if requestsServed == 0 {
                    set(.header, loop.headerTimeout)
                } else {
                    // Idle since now: every call here follows bytes read or written (a request answered, output
                    // flushed), so the idle time counts from the connection's last activity, not from its accept.
                    deadlineKind = .idle
                    deadline = now &+ loop.idleTimeout
                }
            } else {
                set(.header, loop.headerTimeout)
            }
        }
    }

    /// Called by the loop's periodic sweep.
    func checkDeadline(now: UInt64) {
        guard deadlineKind != .none, now >= deadline else { return }
        switch deadlineKind {
        case .header where reserved && requestsServed == 0 && parser.bufferedByteCount == 0:
            // A reserved slot that never asked for a probe path: the answer any connection over the cap gets.
            timeOut(HTTPError.tooManyConnections)
        case .header where parser.bufferedByteCount > 0 || !parser.isAtRequestBoundary:
            timeOut(HTTPParseError.headerTimeout)
        case .body:
            timeOut(HTTPParseError.bodyTimeout)
        default:
            close()
        }
    }

    private func timeOut(_ error: some HTTPResponseConvertible) {
        // A connection still in its TLS handshake cannot be answered: it is just closed.
        guard phase == .reading, tls?.handshakeDone ?? true else {
            close()
            return
        }
        _ = send(error.makeResponse(), RequestInfo.forError(remoteAddress: remoteAddress))
        _ = try? writeOutput()
        close()
    }

    /// Writes pending output to the socket, through the TLS session if there is one.
    private func writeOutput() throws(SystemError) -> Bool {
        if let tls { return try output.write(tls: tls, scratch: loop.tlsScratch) }
        return try output.write(to: fd, vectors: loop.vectors, capacity: loop.vectorCapacity)
    }

    /// Closes the connection; `abortive` (the reset fault) sends no TLS close_notify first.
    func close(abortive: Bool = false) {
        guard phase != .closed else { return }
        // TLS: close_notify first, so the client sees an orderly end rather than a truncation (once; lingering
        // connections sent it already).
        if !abortive { tls?.notifyClose() }
        phase = .closed
        current = nil
        drip = nil
        loop.remove(self)
    }

    /// Answers 503 to a connection over ``HTTPServer/Configuration/Limits/maxConnections`` and closes it.
    static func rejectOverLimit(_ fd: Int32) {
        StatusLines.overLimit.withUnsafeBytes { bytes in
            _ = try? System.nonBlockingCall("send") { Platform.send(fd, bytes.baseAddress, bytes.count) }
        }
        System.close(fd)
    }
}
