import Dispatch
import Foundation
import HTTPCore
import HTTPTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A test-only HTTP/1.1 responder on `127.0.0.1`, port 0: canned responses per path, one request per
/// connection (`Connection: close`), and a log of what it received. Small on purpose: the project's real
/// server (HTTPCore) is tested elsewhere; this only gives the loader a real socket to talk to. Its blocking
/// `accept`/`recv` and the hang route's wait run on threads of its own, never on the Swift concurrency pool, and
/// nothing a test calls on it blocks.
final class LoopbackResponder: Sendable {
    /// What a path answers.
    enum Route: Sendable {
        case respond(status: Int, headers: [String: String], body: [UInt8])
        /// Reads the request and never answers; waits (bounded at 10 s, or until ``stop()``) for the client to give
        /// up and close, and records after how long in ``clientGaveUpAfter`` (measured on the responder's thread).
        case hang
    }

    /// One request as received: method, target (path and query), lower-cased header names, body.
    struct Received: Sendable {
        var method: String
        var target: String
        var headers: [String: String]
        var body: [UInt8]
    }

    let port: Int
    private let listener: Int32
    private let routes: [String: Route]
    private let received = Mutex<[Received]>([])
    private let stopping = Mutex(false)
    private let gaveUp = Mutex<[Duration]>([])
    /// Signalled each time a client closes a hanging connection.
    let clientGaveUp = TestSignal()

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var requests: [Received] { received.withLock { $0 } }
    /// For each hanging request whose client closed the connection: seconds from the request to the close.
    var clientGaveUpAfter: [Duration] { gaveUp.withLock { $0 } }

    /// Binds and starts accepting. `routes` is keyed by path without the query.
    init(routes: [String: Route]) throws {
        self.routes = routes
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ResponderError("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw ResponderError("bind/listen", errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.listener = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting and releases hanging connections without waiting: the accept thread wakes from the shut-down
    /// listener and closes it itself, so its descriptor cannot be reused under a running `accept`.
    func stop() {
        let already = stopping.withLock { stopping in
            defer { stopping = true }
            return stopping
        }
        guard !already else { return }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            if stopping.withLock({ $0 }) {
                close(connection)
                return
            }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let request = readRequest(connection) else { return }
        received.withLock { $0.append(request) }
        let path = String(request.target.prefix { $0 != "?" })
        switch routes[path] {
        case .hang:
            waitForClientToGiveUp(connection, since: .now)
        case .respond(let status, let headers, let body):
            write(connection, status: status, headers: headers, body: body)
        case nil:
            write(connection, status: 404, headers: ["Content-Type": "text/plain"], body: Array("no route".utf8))
        }
    }

    private func waitForClientToGiveUp(_ connection: Int32, since start: ContinuousClock.Instant) {
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        while ContinuousClock.now - start < .seconds(10), !stopping.withLock({ $0 }) {
            let count = recv(connection, &byte, 1, 0)
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            if count <= 0 {
                let after = ContinuousClock.now - start
                gaveUp.withLock { $0.append(after) }
                clientGaveUp.signal()
            }
            return
        }
    }

    private func readRequest(_ connection: Int32) -> Received? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headEnd: Int?
        var contentLength = 0
        var head: (String, String, [String: String])?
        for _ in 0..<1000 {
            if let end = headEnd, bytes.count >= end + contentLength { break }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
            if headEnd == nil, let range = bytes.firstRange(of: Array("\r\n\r\n".utf8)) {
                headEnd = range.upperBound
                head = Self.parseHead(String(decoding: bytes[..<range.lowerBound], as: UTF8.self))
                contentLength = Int(head?.2["content-length"] ?? "") ?? 0
            }
        }
        guard let end = headEnd, let (method, target, headers) = head else { return nil }
        return Received(method: method, target: target, headers: headers, body: Array(bytes[end...]))
    }

    private static func parseHead(_ text: String) -> (String, String, [String: String])? {
        let lines = text.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return (String(requestLine[0]), String(requestLine[1]), headers)
    }

    private func write(_ connection: Int32, status: Int, headers: [String: String], body: [UInt8]) {
        var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Error")\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Platform.send(connection, $0.baseAddress, $0.count)
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return }
            offset += sent
        }
        shutdown(connection, Int32(SHUT_WR))
    }

    /// Compresses `bytes` with zlib (HTTPCore's `Gzip`), for the gzip route. In process on purpose: a `gzip`
    /// child's pipes could be inherited by children other tests launch meanwhile and never reach EOF.
    static func gzip(_ bytes: [UInt8]) -> [UInt8] { Gzip.compress(bytes) }
}

struct ResponderError: Error, CustomStringConvertible {
    var description: String
    init(_ what: String, _ code: Int32) { description = "\(what) failed: \(code)" }
}
