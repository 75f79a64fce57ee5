import CCrypto
import Foundation
import FuzzSupport
import HTTPCore

/// libFuzzer target for HTTP over the server's TLS sessions (``TLSContext``, ``TLSSession``: what the event loops
/// drive), on a real socket pair, every input with a fresh TLS 1.3 handshake.
///
/// Input: one selector byte, then bytes. With bit 0x40 set, the bytes are what a client sends before any handshake
/// (a malformed ClientHello, cleartext HTTP, garbage): the server's handshake must end (done, failed or closed) once
/// the client has half-closed, within a bounded number of steps, never trap. Otherwise a client completes the
/// handshake and sends the bytes as TLS records of (selector & 0x0F) + 1 bytes (×64 with bit 0x20), then ends with
/// close_notify or, with bit 0x10, a bare EOF. Properties:
/// - the server's session reads exactly the bytes the client wrote, record by record, then the end;
/// - parsed as they arrive (one piece per record), they give the same requests as parsed at once
///   (``HTTPParseCheck``: limits from bit 0x80, as in `fuzz-http-parser`).
enum HTTPOverTLSFuzzTarget {
    /// The server's context, with a certificate from a CA made at start (in a temporary directory).
    static let server: TLSContext = {
        do {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-tls-\(getpid())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let authority = try TLSCertificateAuthority.makeAuthority(commonName: "fuzz CA")
            let identity = try TLSCertificateAuthority.issue(hosts: ["localhost"], addresses: [], by: authority)
            let certificate = directory.appendingPathComponent("server.pem").path
            let key = directory.appendingPathComponent("server-key.pem").path
            try identity.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
            try identity.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
            return try TLSContext(HTTPServer.Configuration.TLS(certificateChainFile: certificate, privateKeyFile: key))
        } catch {
            fatalError("fuzz-http-over-tls setup: \(error)")
        }
    }()

    nonisolated(unsafe) static let client: OpaquePointer = {
        signal(SIGPIPE, SIG_IGN)
        guard let context = SSL_CTX_new(TLS_client_method()) else { fatalError("SSL_CTX_new") }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        return context
    }()

    static func run(_ buffer: UnsafeRawBufferPointer) {
        var input = FuzzInput(buffer)
        let selector = input.byte()
        let bytes = Array(input.rest.prefix(64 * 1024))
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { fatalError("socketpair") }
        defer {
            close(pair[0])
            close(pair[1])
        }
        for fd in pair { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        guard let session = server.makeSession(fd: pair[0]) else { fatalError("no TLS session") }
        if selector & 0x40 != 0 {
            raw(bytes, session: session, client: pair[1])
        } else {
            records(bytes, selector: selector, session: session, client: pair[1])
        }
    }

    /// Bytes before any handshake: the handshake ends once the client half-closed.
    static func raw(_ bytes: [UInt8], session: TLSSession, client: Int32) {
        var offset = 0
        var closed = false
        for _ in 0..<10_000 {
            if offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                if count > 0 { offset += count }
            } else if !closed {
                shutdown(client, Int32(SHUT_WR))
                closed = true
            }
            drain(client)
            switch session.handshake() {
            case .bytes, .closed, .failed: return
            case .wantRead, .wantWrite: break
            }
            if closed {
                // Everything sent and the client's side closed: one more step must end the handshake.
                drain(client)
                let last = session.handshake()
                fuzzCheck(last != .wantRead, "a handshake after the client's EOF still wants to read")
                return
            }
        }
        fuzzCheck(false, "the handshake did not end in 10 000 steps")
    }

    /// A completed handshake, then the bytes as records, then the end.
    static func records(_ bytes: [UInt8], selector: UInt8, session: TLSSession, client fd: Int32) {
        guard let ssl = SSL_new(client) else { fatalError("SSL_new") }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, fd)
        SSL_set_connect_state(ssl)
        var clientDone = false
        var serverDone = false
        for _ in 0..<100 where !(clientDone && serverDone) {
            if !clientDone {
                ERR_clear_error()
                let result = SSL_do_handshake(ssl)
                if result == 1 {
                    clientDone = true
                } else {
                    let error = SSL_get_error(ssl, result)
                    fuzzCheck(
                        error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE, "client handshake: \(error)")
                }
            }
            if !serverDone {
                switch session.handshake() {
                case .bytes: serverDone = true
                case .wantRead, .wantWrite: break
                case let other: fuzzCheck(false, "server handshake: \(other)")
                }
            }
        }
        fuzzCheck(clientDone && serverDone, "the handshake did not complete")

        let size = (Int(selector & 0x0F) + 1) * (selector & 0x20 == 0 ? 1 : 64)
        let pieces = stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        var received: [ArraySlice<UInt8>] = []
        var end = false
        func serverReads() {
            while !end {
                switch session.read(buffer) {
                case .bytes(let count): received.append(Array(buffer[0..<count])[...])
                case .wantRead, .wantWrite: return
                case .closed: end = true
                case .failed(let reason): fuzzCheck(false, "server read failed: \(reason)")
                }
            }
        }
        for piece in pieces {
            var written = false
            for _ in 0..<1_000 where !written {
                ERR_clear_error()
                let result = piece.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
                if result > 0 {
                    fuzzCheck(Int(result) == piece.count, "a partial client write")
                    written = true
                }
                serverReads()
            }
            fuzzCheck(written, "the client could not write a record")
        }
        if selector & 0x10 == 0 {
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
        }
        shutdown(fd, Int32(SHUT_WR))
        for _ in 0..<1_000 where !end { serverReads() }
        fuzzCheck(end, "the server did not see the end of the stream")
        let plaintext = Array(received.joined())
        fuzzCheck(plaintext == bytes, "the server read \(plaintext.count) bytes of \(bytes.count), or other bytes")
        fuzzCheck(received.allSatisfy { $0.count <= size }, "a read crossed a record")

        let limits = selector & 0x80 == 0 ? HTTPParser.Limits() : HTTPParseCheck.smallLimits
        let whole = HTTPParseCheck.parse([bytes[...]], limits: limits)
        let arrived = HTTPParseCheck.parse(received, limits: limits)
        fuzzCheck(
            whole.requests == arrived.requests && (whole.errorCode == nil) == (arrived.errorCode == nil),
            "records of \(size) bytes parse differently: \(whole) vs \(arrived)")
    }

    /// Reads and drops what the server wrote to the client's end.
    static func drain(_ fd: Int32) {
        var sink = [UInt8](repeating: 0, count: 16 * 1024)
        while sink.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPOverTLS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    HTTPOverTLSFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FLOW_BFF_FUZZING
    @main
    enum Replay {
        static func main() { FuzzReplay.main(HTTPOverTLSFuzzTarget.run) }
    }
#endif
