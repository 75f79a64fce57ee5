import CCrypto
import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking HTTPS/1.1 client on libssl for tests that need what curl cannot show: one connection kept open across
/// a certificate change, the certificate a server presented, a handshake that stalls. Bounded like
/// ``HTTPTestClient`` (receive and send timeouts) and, like it, only ever called on a ``BlockingThread``.
///
/// ```swift
/// let client = try TLSTestClient(host: "127.0.0.1", port: port, trusting: caFile)
/// let response = try await thread.run { try client.get("/feed") }
/// ```
// @unchecked Sendable: confined to one BlockingThread at a time (every call runs there).
public final class TLSTestClient: @unchecked Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    private let socket: SocketConnection
    private let serverName: String
    private let context: OpaquePointer
    private var ssl: OpaquePointer?
    private var buffer: [UInt8] = []

    /// A client that trusts only the certificates in `caFile` (PEM) and checks the server's certificate against
    /// `serverName` (a DNS name, sent as SNI, or an IP address), by default `host`.
    public init(
        host: String, port: Int, trusting caFile: String, serverName: String? = nil, timeoutSeconds: Int = 10
    ) throws {
        socket = SocketConnection(host: host, port: port, timeoutSeconds: timeoutSeconds)
        self.serverName = serverName ?? host
        // OpenSSL writes with write(2): a server that closed must be an error here, not SIGPIPE for the test process.
        Platform.signal(SIGPIPE, ignore: true)
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TLSTestClientError("SSL_CTX_new") }
        self.context = context
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
            SSL_CTX_free(context)
            throw TLSTestClientError("cannot load \(caFile)")
        }
    }

    deinit {
        close()
        SSL_CTX_free(context)
    }

    /// Connects and completes the handshake (verifying the server's certificate), if not connected.
    public func connect() throws {
        guard ssl == nil else { return }
        try socket.connect()
        guard let ssl = SSL_new(context) else { throw TLSTestClientError("SSL_new") }
        self.ssl = ssl
        if serverName.contains(":") || serverName.allSatisfy({ $0.isNumber || $0 == "." }) {
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
        } else {
            _ = SSL_set1_host(ssl, serverName)
            _ = flow_ssl_set_sni(ssl, serverName)
        }
        SSL_set_fd(ssl, socket.descriptor)
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else {
            let reason = Self.reasons()
            close()
            throw TLSTestClientError("handshake failed: \(reason)")
        }
    }

    /// The certificate the server presented, PEM.
    public func peerCertificatePEM() throws -> String {
        try connect()
        guard let certificate = SSL_get1_peer_certificate(ssl) else { throw TLSTestClientError("no certificate") }
        defer { X509_free(certificate) }
        return TLSCertificateAuthority.pem(ofCertificate: certificate)
    }

    /// The negotiated protocol version (`TLSv1.3`) and ALPN protocol (`http/1.1`, or empty).
    public func negotiated() throws -> (version: String, alpn: String) {
        try connect()
        var length: UInt32 = 0
        let alpn = flow_ssl_alpn_selected(ssl, &length)
        let protocolName =
            alpn.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(length)), as: UTF8.self) } ?? ""
        return (String(cString: SSL_get_version(ssl)), protocolName)
    }

    /// Sends a GET on the open connection (connecting first if needed) and reads its response.
    public func get(_ path: String) throws -> Response {
        try connect()
        try write(Array("GET \(path) HTTP/1.1\r\nHost: \(socket.host)\r\n\r\n".utf8))
        return try readResponse()
    }

    /// Sends raw bytes through the TLS session.
    public func write(_ bytes: [UInt8]) throws {
        try connect()
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            let written = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            guard written > 0 else { throw TLSTestClientError("SSL_write: \(Self.reasons())") }
            offset += Int(written)
        }
    }

    /// Reads one response with a `Content-Length` body.
    public func readResponse() throws -> Response {
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = head.split(separator: "\r\n").map(String.init)
                let statusLine = lines.removeFirst().split(separator: " ")
                let status = statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0
                let headers = lines.compactMap { line -> (name: String, value: String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (
                        String(line[..<colon]),
                        String(line[line.index(after: colon)...]).trimmingPrefix(" ").description
                    )
                }
                let length = Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
                while buffer.count < end + 4 + length { try fill() }
                let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                buffer.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            try fill()
        }
    }

    /// How the server ended the connection, read after its last answer: `close_notify` (an orderly TLS close),
    /// `reset` (`ECONNRESET`), `eof` (the socket closed without close_notify), or `timeout`.
    public func readEnd() -> String {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            ERR_clear_error()
            let count = SSL_read(ssl, &chunk, Int32(chunk.count))
            if count > 0 { continue }
            let code = errno
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_ZERO_RETURN: return "close_notify"
            case SSL_ERROR_SYSCALL where code == ECONNRESET: return "reset"
            case SSL_ERROR_SYSCALL where code == EAGAIN: return "timeout"
            default:
                let reasons = TLSError.drainErrorQueue()
                return code == ECONNRESET ? "reset" : reasons.contains("unexpected eof") || count == 0 ? "eof" : reasons
            }
        }
    }

    /// Half-closes the TCP connection (`shutdown(SHUT_WR)`) without a TLS close_notify, as a client that has sent
    /// its request and closes its side does.
    public func shutdownWrite() {
        _ = shutdown(socket.descriptor, Int32(SHUT_WR))
    }

    /// Whether the server closed the connection (reads until EOF or the receive timeout).
    public func readUntilClosed() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = SSL_read(ssl, &chunk, Int32(chunk.count))
            if count > 0 { continue }
            let error = SSL_get_error(ssl, count)
            return error == SSL_ERROR_ZERO_RETURN || error == SSL_ERROR_SYSCALL || error == SSL_ERROR_SSL
        }
    }

    public func close() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
        buffer = []
        socket.close()
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        ERR_clear_error()
        let count = SSL_read(ssl, &chunk, Int32(chunk.count))
        guard count > 0 else { throw TLSTestClientError("connection ended: \(Self.reasons())") }
        buffer += chunk[0..<Int(count)]
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func reasons() -> String {
        let reasons = TLSError.drainErrorQueue()
        return reasons.isEmpty ? "no OpenSSL reason" : reasons
    }
}

public struct TLSTestClientError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
