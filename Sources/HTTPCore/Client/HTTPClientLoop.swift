import CCurl
import Synchronization

/// libcurl's multi interface on one loop (``ClientPoller``): transfers handed over through the inbox are added
/// to the multi handle, libcurl's socket and timer callbacks become poller registrations, and
/// `curl_multi_socket_action` runs when a socket is ready or the timer is due. Finished transfers resume their
/// task. The multi handle keeps the connection pool and the DNS cache for every transfer of the loop.
// @unchecked Sendable: everything but `inbox` is confined to the loop (its thread or serial queue).
final class HTTPClientLoop: @unchecked Sendable {
    enum Command {
        case start(ClientTransfer)
        /// A transfer that already holds its ``HTTPClient/ConcurrencyLimit`` slot (another loop released it).
        case admitted(ClientTransfer)
        case cancel(ClientTransfer)
        case stop
    }

    private struct Inbox {
        var commands: [Command] = []
        var wakePending = false
        var stopped = false
    }

    let configuration: HTTPClient.Configuration
    private let poller: any ClientPoller
    private let inbox = Mutex(Inbox())
    private let multi: UnsafeMutableRawPointer
    /// Requests for `Accept-Encoding`: every encoding libcurl decodes.
    private let acceptEncoding: String?

    // Loop state.
    private(set) var now: UInt64 = System.monotonicNanoseconds()
    /// When libcurl wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)`; `nil` for never.
    private(set) var timerDeadline: UInt64?
    private var active: [UnsafeMutableRawPointer: ClientTransfer] = [:]
    private var spareHandles: [CurlEasy] = []
    private var stopping = false
    private var running: Int32 = 0

    /// A loop of its own (``HTTPClient/Configuration/eventLoop``), started now.
    convenience init(configuration: HTTPClient.Configuration, name: String) throws(HTTPClientError) {
        let poller: any ClientPoller
        do {
            poller = try configuration.eventLoop.makeClientPoller(name: name)
        } catch {
            throw HTTPClientError(.other, "cannot start the client's event loop: \(error)")
        }
        try self.init(configuration: configuration, poller: poller)
    }

    /// A loop driven by `poller` (its own thread or queue, or a server event loop it is hosted on), started now.
    init(configuration: HTTPClient.Configuration, poller: any ClientPoller) throws(HTTPClientError) {
        HTTPClientLoop.initializeLibcurl()
        self.configuration = configuration
        guard let multi = curl_multi_init() else { throw HTTPClientError(.other, "curl_multi_init failed") }
        self.multi = multi
        acceptEncoding = configuration.decompress ? "" : nil
        self.poller = poller
        let me = Unmanaged.passUnretained(self).toOpaque()
        flow_curl_multi_setopt_socket(multi, curlSocketCallback)
        flow_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, me)
        flow_curl_multi_setopt_timer(multi, curlTimerCallback)
        flow_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, me)
        flow_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, configuration.maximumIdleConnections))
        flow_curl_multi_setopt_long(
            multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, configuration.maximumConnectionsPerHost))
        flow_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, 2)  // CURLPIPE_MULTIPLEX: HTTP/2 streams share
        // The loop holds itself until `finish()`: callbacks reach it through an unretained pointer.
        _ = Unmanaged.passRetained(self)
        poller.start(self)
    }

    /// `curl_global_init`, once per process (libcurl 7.84+ makes it thread-safe; FoundationNetworking calls it too).
    private static let libcurl: Void = { _ = curl_global_init(3) }()  // CURL_GLOBAL_ALL
    static func initializeLibcurl() { _ = libcurl }

    // MARK: Any thread

    /// Hands `command` to the loop; `false` once the loop has stopped.
    @discardableResult
    func submit(_ command: Command) -> Bool {
        let (accepted, wake) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.stopped else { return (false, false) }
            inbox.commands.append(command)
            if case .stop = command { inbox.stopped = true }
            guard !inbox.wakePending else { return (true, false) }
            inbox.wakePending = true
            return (true, true)
        }
        // Outside the lock, so submitting threads do not queue behind a system call: the poller's wake-up
        // descriptor stays open until the poller is released, which the caller's reference to the loop prevents.
        if wake { poller.wake() }
        return accepted
    }

    // MARK: Loop events

    func tick() { now = System.monotonicNanoseconds() }

    /// Takes the clock reading of the server loop a hosted client runs on.
    func tick(at now: UInt64) { self.now = now }

    /// How long the poller may wait, in nanoseconds; `nil` for no limit.
    func nextTimeout() -> UInt64? {
        guard let timerDeadline else { return nil }
        return timerDeadline > now ? timerDeadline - now : 0
    }

    func runInbox() {
        let commands = inbox.withLock { inbox -> [Command] in
            inbox.wakePending = false
            let commands = inbox.commands
            inbox.commands.removeAll(keepingCapacity: true)
            return commands
        }
        for command in commands {
            switch command {
            case .start(let transfer):
                if stopping {
                    transfer.finish(.failure(HTTPClientError(.shutdown, "the HTTP client was shut down")))
                } else if transfer.request.limit?.admit(transfer) ?? true {
                    begin(transfer)
                }
            case .admitted(let transfer):
                if stopping {
                    transfer.finish(.failure(HTTPClientError(.shutdown, "the HTTP client was shut down")))
                    releaseSlot(of: transfer)
                } else {
                    begin(transfer)
                }
            case .cancel(let transfer):
                cancel(transfer)
            case .stop:
                beginStop()
            }
        }
    }

    func socketReady(_ fd: Int32, _ readiness: Readiness) {
        var mask: Int32 = 0
        if readiness.contains(.readable) { mask |= 1 }  // CURL_CSELECT_IN
        if readiness.contains(.writable) { mask |= 2 }  // CURL_CSELECT_OUT
        if readiness.contains(.error) { mask |= 4 }  // CURL_CSELECT_ERR
        curl_multi_socket_action(multi, fd, mask, &running)
        collectFinished()
    }

    /// libcurl's timer when due, then whether the loop is done.
    func afterEvents() -> Bool {
        var rounds = 0
        while let deadline = timerDeadline, deadline <= now, rounds < 4 {
            timerDeadline = nil
            curl_multi_socket_action(multi, -1, 0, &running)  // CURL_SOCKET_TIMEOUT
            collectFinished()
            rounds += 1
        }
        return stopping && active.isEmpty
    }

    /// Ends a hosted loop at once because its server loop stops: later commands are refused, transfers in flight
    /// and pending ones fail with ``HTTPClientError/Kind/shutdown``, then the loop finishes.
    func terminate() {
        inbox.withLock { $0.stopped = true }
        beginStop()
        runInbox()
        finish()
    }

    /// Ends the loop: the multi handle (and its pooled connections) goes, then the poller.
    func finish() {
        spareHandles.removeAll()
        curl_multi_cleanup(multi)
        poller.stop()
        Unmanaged.passUnretained(self).release()
    }

    // MARK: Transfers

    private func begin(_ transfer: ClientTransfer) {
        guard !transfer.isCancelled else {
            transfer.finish(.failure(HTTPClientError(.cancelled, "cancelled")))
            releaseSlot(of: transfer)
            return
        }
        guard let easy = spareHandles.popLast() ?? CurlEasy() else {
            transfer.finish(.failure(HTTPClientError(.other, "curl_easy_init failed")))
            releaseSlot(of: transfer)
            return
        }
        transfer.easy = easy
        if let problem = configure(easy, for: transfer) {
            transfer.easy = nil
            recycle(easy, after: transfer)
            transfer.finish(.failure(problem))
            releaseSlot(of: transfer)
            return
        }
        active[easy.handle] = transfer
        let added = curl_multi_add_handle(multi, easy.handle)
        if added != CURLM_OK {
            active[easy.handle] = nil
            transfer.easy = nil
            recycle(easy, after: transfer)
            transfer.finish(.failure(HTTPClientError(.other, String(cString: curl_multi_strerror(added)))))
            releaseSlot(of: transfer)
        }
    }

    /// The options every transfer of this loop shares, set once when a handle is made (handles are reused without
    /// `curl_easy_reset`, which would clear them and cost more than the transfer's own options).
    private func prepare(_ easy: CurlEasy) {
        let handle = easy.handle
        let me = Unmanaged.passUnretained(self).toOpaque()
        flow_curl_easy_setopt_long(handle, CURLOPT_PROTOCOLS, 3)  // CURLPROTO_HTTP | CURLPROTO_HTTPS
        flow_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        flow_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, easy.errorBuffer)
        flow_curl_easy_setopt_write(handle, curlWriteCallback)
        flow_curl_easy_setopt_header(handle, curlHeaderCallback)
        flow_curl_easy_setopt_close_socket(handle, curlCloseSocketCallback)
        flow_curl_easy_setopt_pointer(handle, CURLOPT_CLOSESOCKETDATA, me)
        flow_curl_easy_setopt_long(
            handle, CURLOPT_MAXAGE_CONN, max(1, Int(configuration.idleConnectionTimeout.nanoseconds / 1_000_000_000)))
        flow_curl_easy_setopt_long(
            handle, CURLOPT_DNS_CACHE_TIMEOUT, Int(configuration.dnsCacheTimeout.nanoseconds / 1_000_000_000))
        flow_curl_easy_setopt_long(handle, CURLOPT_TCP_NODELAY, 1)
        flow_curl_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        flow_curl_easy_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maximumResponseBytes))
        // CURL_HTTP_VERSION_2TLS: HTTP/2 where TLS negotiates it, HTTP/1.1 in cleartext.
        if configuration.http2 { flow_curl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, 4) }
        if let acceptEncoding { flow_curl_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, acceptEncoding) }
        if let userAgent = configuration.userAgent {
            flow_curl_easy_setopt_string(handle, CURLOPT_USERAGENT, userAgent)
        }
        if let caFile = configuration.caFile { flow_curl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile) }
        if let caDirectory = configuration.caDirectory {
            flow_curl_easy_setopt_string(handle, CURLOPT_CAPATH, caDirectory)
        }
        if !configuration.verifyPeer {
            flow_curl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            flow_curl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        easy.prepared = true
    }

    /// Sets the options of one transfer on `easy`, every one a previous transfer may have set (the handle is not
    /// reset between transfers); a problem for a request libcurl refuses (an unsupported URL).
    private func configure(_ easy: CurlEasy, for transfer: ClientTransfer) -> HTTPClientError? {
        if !easy.prepared { prepare(easy) }
        let handle = easy.handle
        let request = transfer.request
        easy.errorBuffer[0] = 0
        guard flow_curl_easy_setopt_string(handle, CURLOPT_URL, request.url) == CURLE_OK,
            request.url.hasPrefix("http://") || request.url.hasPrefix("https://")
        else { return HTTPClientError(.invalidURL, "not an http(s) URL: \(request.url)") }
        let transferPointer = Unmanaged.passUnretained(transfer).toOpaque()
        flow_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, transferPointer)
        flow_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, transferPointer)
        let timeout = max(1, Int(request.timeout.nanoseconds / 1_000_000))
        flow_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeout)
        flow_curl_easy_setopt_long(
            handle, CURLOPT_CONNECTTIMEOUT_MS,
            min(timeout, max(1, Int(configuration.connectTimeout.nanoseconds / 1_000_000))))
        // Every method starts from a plain GET: CURLOPT_HTTPGET clears a previous transfer's POST and NOBODY.
        flow_curl_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)
        flow_curl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, nil)
        switch request.method {
        case "GET": break
        case "HEAD": flow_curl_easy_setopt_long(handle, CURLOPT_NOBODY, 1)
        case "POST": flow_curl_easy_setopt_long(handle, CURLOPT_POST, 1)
        default: flow_curl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let shared = request.sharedBody?.bodyBytes {
            flow_curl_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(shared.count))
            if let base = shared.baseAddress, shared.count > 0 {
                // POSTFIELDS reads the bytes where they are; the transfer's request holds their owner to its end.
                flow_curl_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: base))
            } else {
                flow_curl_easy_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
            }
        } else if let body = request.body {
            flow_curl_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            body.withUnsafeBufferPointer { bytes in
                // COPYPOSTFIELDS copies POSTFIELDSIZE bytes now.
                if let base = bytes.baseAddress {
                    _ = flow_curl_easy_setopt_pointer(
                        handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
                } else {
                    _ = flow_curl_easy_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
                }
            }
        } else if request.method == "POST" {
            flow_curl_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            flow_curl_easy_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
        }
        // No `Expect: 100-continue` round trip for larger bodies: upstreams are ours.
        var list = curl_slist_append(nil, "Expect:")
        for field in request.headers { list = curl_slist_append(list, field.name + ": " + field.value) }
        transfer.headerList = list
        flow_curl_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        return nil
    }

    private func cancel(_ transfer: ClientTransfer) {
        if let easy = transfer.easy, active[easy.handle] === transfer {
            complete(transfer, easy, error: HTTPClientError(.cancelled, "cancelled"))
        } else if let limit = transfer.request.limit, limit.withdraw(transfer) {
            transfer.finish(.failure(HTTPClientError(.cancelled, "cancelled")))
        }
    }

    /// Reads libcurl's finished transfers and resumes their tasks.
    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = active[handle], let easy = transfer.easy
            else { continue }
            let code = flow_curl_message_result(message)
            if code == CURLE_OK {
                var status = 0
                flow_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
                let response = HTTPClientResponse(status: status, lines: transfer.headerBytes, body: transfer.body)
                transfer.body = []
                complete(transfer, easy, response: response)
            } else {
                complete(transfer, easy, error: error(code, easy, transfer))
            }
        }
    }

    private func complete(
        _ transfer: ClientTransfer, _ easy: CurlEasy, response: HTTPClientResponse? = nil,
        error: HTTPClientError? = nil
    ) {
        active[easy.handle] = nil
        curl_multi_remove_handle(multi, easy.handle)
        transfer.easy = nil
        recycle(easy, after: transfer)
        if let response { transfer.finish(.success(response)) } else if let error { transfer.finish(.failure(error)) }
        releaseSlot(of: transfer)
    }

    /// Hands the finished transfer's concurrency slot to the next waiting one, which begins on its own loop.
    private func releaseSlot(of transfer: ClientTransfer) {
        guard let limit = transfer.request.limit, let next = limit.release() else { return }
        if let owner = next.loop, owner !== self {
            // Waiting on another loop (a call made on another server loop): it begins there. A loop that stopped
            // refuses it, and it is not touched there any more.
            guard !owner.submit(.admitted(next)) else { return }
            next.finish(.failure(HTTPClientError(.shutdown, "the HTTP client was shut down")))
            releaseSlot(of: next)
        } else if stopping {
            next.finish(.failure(HTTPClientError(.shutdown, "the HTTP client was shut down")))
            releaseSlot(of: next)
        } else {
            begin(next)
        }
    }

    /// Keeps `easy` for a later transfer, its shared options still set; the finished `transfer`'s header list (freed
    /// with the transfer), data pointers and shared body are taken off it first.
    private func recycle(_ easy: CurlEasy, after transfer: ClientTransfer) {
        guard !stopping, spareHandles.count < 64 else { return }
        flow_curl_easy_setopt_pointer(easy.handle, CURLOPT_HTTPHEADER, nil)
        flow_curl_easy_setopt_pointer(easy.handle, CURLOPT_WRITEDATA, nil)
        flow_curl_easy_setopt_pointer(easy.handle, CURLOPT_HEADERDATA, nil)
        // A shared body's memory goes with its transfer (the next transfer sets its method and body afresh).
        if transfer.request.sharedBody != nil { flow_curl_easy_setopt_pointer(easy.handle, CURLOPT_POSTFIELDS, nil) }
        spareHandles.append(easy)
    }

    private func error(_ code: CURLcode, _ easy: CurlEasy, _ transfer: ClientTransfer) -> HTTPClientError {
        let message = Self.withoutTimings(easy.message(for: code))
        let kind: HTTPClientError.Kind
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return HTTPClientError(.timeout, "no answer within \(Double(transfer.request.timeout.nanoseconds) / 1e9) s")
        case CURLE_WRITE_ERROR where transfer.tooLarge, CURLE_FILESIZE_EXCEEDED:
            return HTTPClientError(
                .responseTooLarge, "the answer is larger than \(configuration.maximumResponseBytes) bytes")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            kind = .connect
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            kind = .connectionLost
        case CURLE_PARTIAL_FILE:
            kind = .truncated
        case CURLE_BAD_CONTENT_ENCODING, CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM,
            // The URL was checked to be http(s): this is an answer that is not HTTP/1.x ("Received HTTP/0.9").
            CURLE_UNSUPPORTED_PROTOCOL:
            kind = .invalidResponse
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE:
            kind = .tls
        case CURLE_URL_MALFORMAT:
            kind = .invalidURL
        default:
            kind = .other
        }
        return HTTPClientError(kind, message)
    }

    /// libcurl's message without the elapsed time it puts in some ("Failed to connect to … after 0 ms"): the text
    /// can end up in a degraded page, whose bytes (and ETag) must not change while an upstream stays down.
    static func withoutTimings(_ message: String) -> String {
        let bytes = Array(message.utf8)
        let marker = Array(" after ".utf8)
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index...].starts(with: marker) {
                var end = index + marker.count
                while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
                if end > index + marker.count, bytes[end...].starts(with: " ms".utf8) {
                    index = end + 3
                    continue
                }
            }
            result.append(bytes[index])
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    // MARK: Shutdown

    private func beginStop() {
        stopping = true
        let shutdown = HTTPClientError(.shutdown, "the HTTP client was shut down")
        for transfer in Array(active.values) {
            if let easy = transfer.easy { complete(transfer, easy, error: shutdown) }
        }
    }

    // MARK: libcurl callbacks (on the loop, inside curl_multi_socket_action or curl_multi_add_handle)

    fileprivate func curlSocket(_ fd: Int32, _ what: Int32) {
        switch what {
        case 1: poller.watch(fd, .readable)  // CURL_POLL_IN
        case 2: poller.watch(fd, .writable)  // CURL_POLL_OUT
        case 3: poller.watch(fd, [.readable, .writable])  // CURL_POLL_INOUT
        default: poller.unwatch(fd)  // CURL_POLL_REMOVE
        }
    }

    fileprivate func curlTimer(_ milliseconds: Int) {
        // From the loop's clock reading, not a fresh one: a 0 ms timer (a transfer just added) is due in this very
        // round of events instead of rounding up to a 1 ms wait.
        timerDeadline = milliseconds < 0 ? nil : now &+ UInt64(milliseconds) &* 1_000_000
        poller.timerChanged()
    }

    fileprivate func curlCloseSocket(_ fd: Int32) {
        poller.closeSocket(fd)
    }
}

private func loop(_ pointer: UnsafeMutableRawPointer?) -> HTTPClientLoop {
    Unmanaged<HTTPClientLoop>.fromOpaque(pointer!).takeUnretainedValue()
}

private func transfer(_ pointer: UnsafeMutableRawPointer?) -> ClientTransfer {
    Unmanaged<ClientTransfer>.fromOpaque(pointer!).takeUnretainedValue()
}

private let curlSocketCallback:
    @convention(c) (
        UnsafeMutableRawPointer?, curl_socket_t, Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
    ) -> Int32 = { _, fd, what, userp, _ in
        loop(userp).curlSocket(fd, what)
        return 0
    }

private let curlTimerCallback: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32 = {
    _, milliseconds, userp in
    loop(userp).curlTimer(milliseconds)
    return 0
}

private let curlCloseSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t) -> Int32 = {
    clientp, fd in
    loop(clientp).curlCloseSocket(fd)
    return 0
}

private let curlWriteCallback:
    @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int =
        { data, size, count, userdata in
            let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
            return transfer(userdata).received(bytes) ? bytes.count : 0
        }

private let curlHeaderCallback:
    @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int =
        { data, size, count, userdata in
            let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
            transfer(userdata).receivedHeader(bytes)
            return bytes.count
        }
