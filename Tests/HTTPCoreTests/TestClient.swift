import HTTPCore

#if canImport(Glibc)
    import Glibc
#endif

/// A parsed response read by ``TestClient``.
struct TestResponse {
    var status: Int
    var headers: HTTPFields
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

struct TestClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking loopback client with a receive timeout, so every read in a test is bounded.
final class TestClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, host: String = "127.0.0.1", receiveTimeout: Int = 5) throws {
        let family = host.contains(":") ? AF_INET6 : AF_INET
        fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError(function: "socket", errno: errno) }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var result: Int32
        if family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        if result != 0 {
            let code = errno
            Glibc.close(fd)
            throw SystemError(function: "connect", errno: code)
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError(function: "send", errno: errno)
            }
            offset += written
        }
    }

    /// Reads more bytes; returns false on EOF. Throws on timeout or error (e.g. ECONNRESET).
    @discardableResult
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
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

    /// Reads until `count` bytes are buffered; false on EOF.
    private func need(_ count: Int) throws -> Bool {
        while buffer.count < count { guard try fill() else { return false } }
        return true
    }

    private func line() throws -> String? {
        while true {
            if let lf = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[0..<lf].dropLast(buffer[..<lf].last == 0x0D ? 1 : 0), as: UTF8.self)
                buffer.removeFirst(lf + 1)
                return line
            }
            guard try fill() else { return nil }
        }
    }

    /// Reads one response; `nil` if the connection closed before any byte. `head: true` reads no body.
    func readResponse(head: Bool = false) throws -> TestResponse? {
        guard let statusLine = try line() else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw TestClientError(description: "bad status line \(statusLine.debugDescription)")
        }
        var headers = HTTPFields()
        while let line = try line(), !line.isEmpty {
            let colon = line.firstIndex(of: ":")!
            headers.append(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters())
        }
        var body: [UInt8] = []
        if head || status == 204 || status == 304 || status < 200 {
        } else if headers["Transfer-Encoding"] == "chunked" {
            while true {
                guard let sizeLine = try line(), let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                    throw TestClientError(description: "bad chunk")
                }
                if size == 0 {
                    while let trailer = try line(), !trailer.isEmpty {}
                    break
                }
                guard try need(size + 2) else { throw TestClientError(description: "eof in chunk") }
                body.append(contentsOf: buffer[0..<size])
                buffer.removeFirst(size + 2)
            }
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            guard try need(length) else { throw TestClientError(description: "eof in body") }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            body = buffer
            buffer = []
        }
        return TestResponse(status: status, headers: headers, body: body)
    }

    /// Reads until EOF; returns everything received.
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
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// A loopback, port 0, two-thread configuration adjusted by `configure`.
func testConfiguration(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
    configuration.workerThreads = 2
    configure(&configuration)
    return configuration
}

/// Starts a server, runs `body`, then shuts it down and waits for it to stop.
func withServer(
    _ configuration: HTTPServer.Configuration = testConfiguration(), logger: any HTTPLogSink = HTTPNoopLogSink(),
    responder: some HTTPResponder, _ body: (HTTPServer) throws -> Void
) throws {
    let server = HTTPServer(configuration: configuration, logger: logger, responder: responder)
    try server.start()
    defer {
        server.shutdown(drainTimeout: .seconds(2))
        server.waitUntilStopped()
    }
    try body(server)
}
