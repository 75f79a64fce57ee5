import Foundation
import HTTPCore

#if canImport(Glibc)
    import Glibc
#endif

/// A small blocking HTTP/1.1 client over a real loopback socket, for tests that must control the exact bytes sent
/// (odd targets, tampered cursors, oversize bodies). One connection, reused while the server keeps it alive.
public final class HTTPTestClient {
    public struct Response: Sendable {
        public var status: Int
        /// Header fields as received (names as sent by the server).
        public var headers: [(name: String, value: String)]
        /// The body as received (still gzip-compressed when `Content-Encoding: gzip`).
        public var rawBody: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body, gunzipped when the response is gzip-encoded.
        public var body: [UInt8] {
            header("Content-Encoding") == "gzip" ? (Gzip.decompress(rawBody) ?? []) : rawBody
        }

        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct ClientError: Error, CustomStringConvertible {
        public var description: String
    }

    let host: String
    let port: Int
    /// Receive timeout for each read. Default 5 s.
    let timeout: Int
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []

    public init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 5) {
        self.host = host
        self.port = port
        self.timeout = timeoutSeconds
    }

    deinit { close() }

    public func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
        buffer = []
    }

    func connect() throws {
        guard fd < 0 else { return }
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw ClientError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            _ = Glibc.close(socketFD)
            throw ClientError(description: "connect to \(host):\(port): errno \(code)")
        }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        fd = socketFD
    }

    /// Sends raw bytes on the connection (connecting first if needed).
    public func send(raw: [UInt8]) throws {
        try connect()
        var offset = 0
        while offset < raw.count {
            let written = raw[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw ClientError(description: "send: errno \(errno)") }
            offset += written
        }
    }

    /// Sends one request and reads its response.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        do {
            try send(raw: Array(head.utf8) + (body ?? []))
            return try readResponse(method: method)
        } catch {
            // A kept-alive connection the server closed meanwhile: retry once on a fresh one.
            close()
            try send(raw: Array(head.utf8) + (body ?? []))
            return try readResponse(method: method)
        }
    }

    public func get(_ target: String, headers: [(String, String)] = []) throws -> Response {
        try request("GET", target, headers: headers)
    }

    public func post(_ target: String, json: String, headers: [(String, String)] = []) throws -> Response {
        try request("POST", target, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw ClientError(description: "recv: errno \(errno)") }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[..<index].last == UInt8(ascii: "\r") ? buffer[..<(index - 1)] : buffer[..<index]
                let text = String(decoding: line, as: UTF8.self)
                buffer.removeFirst(index + 1)
                return text
            }
            guard try fill() else { throw ClientError(description: "connection closed mid-head") }
        }
    }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw ClientError(description: "connection closed mid-body") }
        }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads one response from the connection.
    public func readResponse(method: String = "GET") throws -> Response {
        var statusLine = try readLine()
        var status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [(name: String, value: String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty {
                if (100..<200).contains(status) {  // interim response: read the final one
                    statusLine = try readLine()
                    status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
                    continue
                }
                break
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = Response(status: status, headers: headers, rawBody: [])
        if method == "HEAD" || status == 204 || status == 304 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            response.rawBody = try readBytes(length)
        } else if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            while true {
                let sizeLine = try readLine()
                let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) ?? 0
                if size == 0 {
                    while try !readLine().isEmpty {}
                    break
                }
                response.rawBody += try readBytes(size)
                _ = try readLine()
            }
        } else {
            while try fill() {}
            response.rawBody = buffer
            buffer = []
        }
        if response.header("Connection")?.lowercased() == "close" { close() }
        return response
    }
}
