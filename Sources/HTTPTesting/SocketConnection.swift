import CCrypto
import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The blocking half of ``HTTPTestClient``: one TCP connection with receive and send timeouts, so every call is
/// bounded. It only ever runs on the client's ``BlockingThread``, never on the Swift concurrency pool.
// @unchecked Sendable: confined to one BlockingThread; the async client only touches it inside jobs on that thread.
final class SocketConnection: @unchecked Sendable {
    let host: String
    let port: Int
    let timeoutSeconds: Int
    private var fd: Int32 = -1
    /// The TLS session when ``TestTLS/isOn`` (every byte then goes through it); `nil` for plain TCP.
    private var ssl: OpaquePointer?
    private var buffer: [UInt8] = []
    /// The last response said `Connection: close`: the next request opens a new connection.
    private var peerClosing = false

    init(host: String, port: Int, timeoutSeconds: Int) {
        self.host = host
        self.port = port
        self.timeoutSeconds = timeoutSeconds
    }

    deinit { close() }

    var isOpen: Bool { fd >= 0 }

    /// The connected socket (``TLSTestClient`` runs its TLS session on it); `-1` when closed.
    var descriptor: Int32 { fd }

    func close() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if fd >= 0 { Platform.close(fd) }
        fd = -1
        buffer = []
        peerClosing = false
    }

    /// Connects if not connected; throws `SystemError(function: "connect", …)` (e.g. `ECONNREFUSED`).
    func connect() throws {
        guard fd < 0 else { return }
        let family = host.contains(":") ? AF_INET6 : AF_INET
        let socketFD = Platform.socket(family: family, nonBlocking: false)
        guard socketFD >= 0 else { throw SystemError(function: "socket", errno: errno) }
        var time = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socketFD, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var result: Int32
        if family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Platform.connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Platform.connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard result == 0 else {
            let code = errno
            Platform.close(socketFD)
            throw SystemError(function: "connect", errno: code)
        }
        fd = socketFD
        if TestTLS.isOn { try startTLS() }
    }

    /// The handshake on the connected socket (blocking, bounded by the socket's timeouts). A server that closes or
    /// refuses it reads as `ECONNRESET`, as a refused plain connection would.
    private func startTLS() throws {
        guard let session = SSL_new(TestTLS.clientContext) else {
            throw SystemError(function: "SSL_new", errno: ENOMEM)
        }
        ssl = session
        SSL_set_fd(session, fd)
        ERR_clear_error()
        guard SSL_connect(session) == 1 else {
            let code = errno
            _ = TLSError.drainErrorQueue()
            close()
            throw SystemError(function: "SSL_connect", errno: code == EAGAIN ? EAGAIN : ECONNRESET)
        }
    }

    func send(_ bytes: [UInt8]) throws {
        try connect()
        var offset = 0
        while offset < bytes.count {
            if let ssl {
                ERR_clear_error()
                let written = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
                guard written > 0 else {
                    let code = errno
                    _ = TLSError.drainErrorQueue()
                    throw SystemError(function: "SSL_write", errno: code == EAGAIN ? EAGAIN : EPIPE)
                }
                offset += Int(written)
                continue
            }
            let written = bytes[offset...].withUnsafeBytes {
                Platform.send(fd, $0.baseAddress, $0.count)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError(function: "send", errno: errno)
            }
            offset += written
        }
    }

    /// Reads more bytes into the buffer; false on EOF. Throws on timeout (`EAGAIN`) or error (`ECONNRESET`).
    @discardableResult
    func fill() throws -> Bool {
        guard fd >= 0 else { throw HTTPTestClient.ClientError(description: "not connected") }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        if let ssl { return try fillTLS(ssl, &chunk) }
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError(function: "recv", errno: errno)
            }
            if count == 0 { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }

    /// `fill()` through the TLS session: the peer's close_notify or a plain EOF is the end; the receive timeout is
    /// `EAGAIN`; a reset or a TLS alert is `ECONNRESET`.
    private func fillTLS(_ ssl: OpaquePointer, _ chunk: inout [UInt8]) throws -> Bool {
        while true {
            ERR_clear_error()
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<Int(count)])
                return true
            }
            let code = errno
            let error = SSL_get_error(ssl, count)
            let queued = ERR_peek_error()
            _ = TLSError.drainErrorQueue()
            switch error {
            case SSL_ERROR_ZERO_RETURN: return false
            case SSL_ERROR_SYSCALL where queued == 0 && (count == 0 || code == 0): return false
            case SSL_ERROR_SYSCALL where code == EINTR: continue
            case SSL_ERROR_WANT_READ: throw SystemError(function: "recv", errno: EAGAIN)
            case SSL_ERROR_SYSCALL where code == EAGAIN || code == EWOULDBLOCK:
                throw SystemError(function: "recv", errno: EAGAIN)
            case SSL_ERROR_SYSCALL: throw SystemError(function: "recv", errno: code)
            default: throw SystemError(function: "recv", errno: ECONNRESET)
            }
        }
    }

    private func need(_ count: Int) throws -> Bool {
        while buffer.count < count { guard try fill() else { return false } }
        return true
    }

    private func line() throws -> String? {
        while true {
            if let lf = buffer.firstIndex(of: 0x0A) {
                let end = lf > 0 && buffer[lf - 1] == 0x0D ? lf - 1 : lf
                let text = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(lf + 1)
                return text
            }
            guard try fill() else { return nil }
        }
    }

    private func requireLine(_ what: String) throws -> String {
        guard let line = try line() else { throw HTTPTestClient.ClientError(description: "connection closed \(what)") }
        return line
    }

    /// Reads one response; `nil` if the connection closed before any byte of it. Interim 1xx responses are returned
    /// as they are when `interim`, otherwise skipped.
    func readResponse(method: String, interim: Bool = false) throws -> HTTPTestClient.Response? {
        guard let first = try line() else { return nil }
        var statusLine = first
        var status = 0
        var headers = HTTPFields()
        while true {
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0] == "HTTP/1.1", let code = Int(parts[1]) else {
                throw HTTPTestClient.ClientError(description: "bad status line \(statusLine.debugDescription)")
            }
            status = code
            headers = HTTPFields()
            while true {
                let line = try requireLine("mid-head")
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else {
                    throw HTTPTestClient.ClientError(description: "bad header line \(line.debugDescription)")
                }
                headers.append(String(line[..<colon]), Self.trimmed(line[line.index(after: colon)...]))
            }
            guard !interim, (100..<200).contains(status), status != 101 else { break }
            statusLine = try requireLine("after an interim response")
        }
        var body: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
        } else if headers.containsToken("chunked", in: "Transfer-Encoding") {
            while true {
                let sizeLine = try requireLine("mid-chunk")
                guard let size = Int(Self.trimmed(sizeLine.prefix { $0 != ";" }), radix: 16) else {
                    throw HTTPTestClient.ClientError(description: "bad chunk size \(sizeLine.debugDescription)")
                }
                if size == 0 {
                    while try !requireLine("in trailers").isEmpty {}
                    break
                }
                guard try need(size + 2) else { throw HTTPTestClient.ClientError(description: "eof in chunk") }
                body.append(contentsOf: buffer[0..<size])
                buffer.removeFirst(size + 2)
            }
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            guard try need(length) else { throw HTTPTestClient.ClientError(description: "eof in body") }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            body = buffer
            buffer = []
        }
        if headers.containsToken("close", in: "Connection") { peerClosing = true }
        return HTTPTestClient.Response(status: status, headers: headers, rawBody: body)
    }

    /// Sends one request and reads its response. A kept-alive connection the server closed meanwhile (EOF or reset
    /// before any byte of the answer) is retried once on a fresh connection.
    func request(_ bytes: [UInt8], method: String) throws -> HTTPTestClient.Response {
        if peerClosing { close() }
        let reused = isOpen
        do {
            try send(bytes)
            if let response = try readResponse(method: method) { return response }
            guard reused else { throw HTTPTestClient.ClientError(description: "connection closed without a response") }
        } catch let error as SystemError where reused && [ECONNRESET, EPIPE].contains(error.errno) {
        }
        close()
        try send(bytes)
        guard let response = try readResponse(method: method) else {
            throw HTTPTestClient.ClientError(description: "connection closed without a response")
        }
        return response
    }

    /// Reads until `marker` has arrived; returns the bytes up to and including it (raw: chunk framing included),
    /// keeping the rest buffered. Throws on EOF before it, or on the receive timeout.
    func read(through marker: [UInt8]) throws -> [UInt8] {
        while true {
            if let range = buffer.firstRange(of: marker) {
                defer { buffer.removeFirst(range.upperBound) }
                return Array(buffer[..<range.upperBound])
            }
            guard try fill() else {
                throw HTTPTestClient.ClientError(
                    description: "connection closed before \"\(String(decoding: marker, as: UTF8.self))\"")
            }
        }
    }

    /// Reads until EOF; returns everything received (and buffered).
    func readToEOF() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// True when the peer closed the connection (EOF with nothing buffered).
    func isClosedByPeer() throws -> Bool {
        if !buffer.isEmpty { return false }
        return try !fill()
    }

    /// Sends `bytes`, then reads until EOF, an error or the receive timeout, timing every read.
    func exchange(_ bytes: [UInt8]) -> RawExchange {
        var exchange = RawExchange(bytes: [])
        do {
            try send(bytes)
        } catch let error as SystemError {
            exchange.error = error.errno
            return exchange
        } catch {
            exchange.error = EIO
            return exchange
        }
        let start = ContinuousClock.now
        while true {
            do {
                let before = buffer.count
                guard try fill() else { break }
                let elapsed = start.duration(to: .now)
                exchange.reads += 1
                if exchange.firstByte == nil { exchange.firstByte = elapsed.seconds }
                exchange.lastByte = elapsed.seconds
                exchange.bytes += buffer[before...]
            } catch let error as SystemError {
                exchange.error = error.errno
                break
            } catch {
                exchange.error = EIO
                break
            }
        }
        buffer = []
        return exchange
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
