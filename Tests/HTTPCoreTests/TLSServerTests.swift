import Foundation
import HTTPCore
import HTTPTesting
import Testing

/// HTTPS on both event loops, with libssl's own client (``TLSTestClient``): handshakes driven by the loop, keep-alive
/// and large bodies through the session, clients that do not trust the certificate, cleartext on the TLS port, a
/// stalled handshake, and certificate files replaced on disk. (curl, OkHttp and Chromium fetch pages over HTTPS in
/// the application's tests.)
@Suite("TLS (loopback)")
struct TLSServerTests {
    /// A CA and a server certificate it signed, in files, as a deployment has them.
    struct Files {
        let directory: URL
        let authority: TLSIdentity
        var caFile: String { directory.appendingPathComponent("ca.pem").path }
        var certificateFile: String { directory.appendingPathComponent("server.pem").path }
        var keyFile: String { directory.appendingPathComponent("server.key").path }

        init(hosts: [String] = ["localhost"], addresses: [String] = ["127.0.0.1", "::1"]) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "flow-bff-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            authority = try TLSCertificateAuthority.makeAuthority(commonName: "flow-bff test CA")
            try authority.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
            try install(try issue(hosts: hosts, addresses: addresses))
        }

        func issue(hosts: [String] = ["localhost"], addresses: [String] = ["127.0.0.1"]) throws -> TLSIdentity {
            try TLSCertificateAuthority.issue(hosts: hosts, addresses: addresses, by: authority)
        }

        /// Replaces both files the way cert-manager and ACME clients do: each written beside and renamed over.
        func install(_ identity: TLSIdentity, key: String? = nil) throws {
            try identity.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
            try (key ?? identity.privateKeyPEM).write(toFile: keyFile, atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        func configuration(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration
        {
            testConfiguration {
                $0.tls = HTTPServer.Configuration.TLS(certificateChainFile: certificateFile, privateKeyFile: keyFile)
                configure(&$0)
            }
        }
    }

    static let router: Router = {
        var router = testRouter
        let large = PreparedBody(
            Array(String(repeating: "{\"id\":1,\"name\":\"tls\"},", count: 10_000).utf8),
            contentType: "application/json")
        router.get("/large") { _ in .response(.prepared(large)) }
        return router
    }()

    @Test(arguments: EventLoopKindTests.kinds)
    func requestsGoThroughTheSessionOnOneKeptAliveConnection(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        let files = try Files()
        defer { files.remove() }
        try await withServer(files.configuration { $0.eventLoop = kind }, responder: Self.router) { server in
            let thread = BlockingThread(name: "tls-client")
            defer { thread.finish() }
            let client = try TLSTestClient(host: "127.0.0.1", port: server.port, trusting: files.caFile)
            let hello = try await thread.run { try client.get("/hello") }
            let large = try await thread.run { try client.get("/large") }
            let negotiated = try await thread.run { try client.negotiated() }
            #expect(negotiated.version == "TLSv1.3")
            #expect(negotiated.alpn == "", "this client offers no ALPN")
            #expect(hello.status == 200 && String(decoding: hello.body, as: UTF8.self) == "hello")
            // 220 kB: a prepared body the cleartext path would send with sendfile goes through SSL_write.
            #expect(large.status == 200 && large.body.count == 22 * 10_000)
            #expect(large.body.prefix(22) == Array("{\"id\":1,\"name\":\"tls\"},".utf8)[...])
            // A 100 kB body in, echoed back, pipelined behind another request on the same connection.
            let body = [UInt8]((0..<100_000).map { UInt8($0 % 251) })
            let request =
                Array("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
                + Array("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
            try await thread.run { try client.write(request) }
            let echo = try await thread.run { try client.readResponse() }
            let again = try await thread.run { try client.readResponse() }
            #expect(echo.status == 200 && echo.body == body)
            #expect(again.status == 200)
            #expect(server.statistics.connectionsAccepted == 1, "one connection for all five requests")
            client.close()
        }
    }

    @Test(arguments: EventLoopKindTests.kinds)
    func clientsThatDoNotTrustTheCertificateOrSpeakCleartextAreRefused(
        _ kind: HTTPServer.Configuration.EventLoopKind
    ) async throws {
        let files = try Files()
        let stranger = try Files()
        defer {
            files.remove()
            stranger.remove()
        }
        try await withServer(files.configuration { $0.eventLoop = kind }, responder: Self.router) { server in
            let thread = BlockingThread(name: "tls-client")
            defer { thread.finish() }
            // Trusts another CA: the handshake fails on the client's side.
            let untrusting = try TLSTestClient(host: "127.0.0.1", port: server.port, trusting: stranger.caFile)
            await #expect(throws: TLSTestClientError.self) { try await thread.run { try untrusting.connect() } }
            // Cleartext HTTP to the TLS port: no HTTP answer (at most a TLS alert), the connection is closed — or
            // reset, as the request's bytes were never read.
            let plain = HTTPTestClient(port: server.port)
            try await plain.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            do {
                #expect(try await plain.isClosedByPeer())
            } catch let error as SystemError {
                #expect(error.errno == ECONNRESET)
            }
            // Trusts the CA, but asks for a name the certificate does not carry.
            let wrongName = try TLSTestClient(
                host: "127.0.0.1", port: server.port, trusting: files.caFile, serverName: "phone.example")
            await #expect(throws: TLSTestClientError.self) { try await thread.run { try wrongName.connect() } }
            // And the server still serves, by address and by name.
            let byAddress = try TLSTestClient(host: "127.0.0.1", port: server.port, trusting: files.caFile)
            let byName = try TLSTestClient(
                host: "127.0.0.1", port: server.port, trusting: files.caFile, serverName: "localhost")
            #expect(try await thread.run { try byAddress.get("/hello") }.status == 200)
            #expect(try await thread.run { try byName.get("/hello") }.status == 200)
        }
    }

    @Test(arguments: EventLoopKindTests.kinds)
    func aStalledHandshakeEndsAtTheHeaderTimeout(_ kind: HTTPServer.Configuration.EventLoopKind) async throws {
        let files = try Files()
        defer { files.remove() }
        let configuration = files.configuration {
            $0.eventLoop = kind
            $0.timeouts.headerRead = .seconds(1)
        }
        try await withServer(configuration, responder: Self.router) { server in
            // Connected, sends the first bytes of a ClientHello's record header and nothing more. Timed on the
            // client's own thread, so a busy concurrency pool does not stretch the measurement.
            let thread = BlockingThread(name: "stalled-handshake")
            defer { thread.finish() }
            let stalled = HTTPTestClient(port: server.port, thread: thread)
            let (closed, elapsed) = try await HTTPTestClient.batch([stalled], on: thread) { connections in
                let start = ContinuousClock.now
                try connections[0].send(raw: [0x16, 0x03, 0x01])
                let closed = try connections[0].isClosedByPeer()
                return (closed, ContinuousClock.now - start)
            }
            #expect(closed)
            // The sweep runs every 50 ms; a loaded machine may be late by a few seconds, never by the client's 30 s.
            #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(10), "closed after \(elapsed)")
        }
    }

    @Test(arguments: EventLoopKindTests.kinds)
    func aReplacedCertificateIsServedToNewConnectionsWithoutDroppingOpenOnes(
        _ kind: HTTPServer.Configuration.EventLoopKind
    ) async throws {
        let files = try Files()
        defer { files.remove() }
        // The default reload interval (500 ms): a second after the files changed, a new connection has the new pair.
        // A connection with a handshake and no request yet is closed at the header timeout: a generous one, as the
        // hops between this test's steps wait for the concurrency pool (seconds, on a loaded one-core machine).
        let configuration = files.configuration {
            $0.eventLoop = kind
            $0.timeouts.headerRead = .seconds(60)
        }
        try await withServer(configuration, responder: Self.router) { server in
            let thread = BlockingThread(name: "tls-client")
            defer { thread.finish() }
            let open = try TLSTestClient(host: "127.0.0.1", port: server.port, trusting: files.caFile)
            let (first, hello) = try await thread.run { (try open.peerCertificatePEM(), try open.get("/hello")) }
            #expect(hello.status == 200)

            // Rotated: a new certificate and key.
            let rotated = try files.issue()
            try files.install(rotated)
            try await Task.sleep(for: .seconds(1))
            let fresh = try TLSTestClient(host: "127.0.0.1", port: server.port, trusting: files.caFile)
            let presented = try await thread.run { try fresh.peerCertificatePEM() }
            #expect(presented == rotated.certificatePEM)
            #expect(presented != first)
            // The connection opened before still works, with its certificate.
            #expect(try await thread.run { try open.get("/hello") }.status == 200)

            // A half-done rotation (a new certificate with the old key) does not load: the last good pair stays.
            try files.install(try files.issue(), key: rotated.privateKeyPEM)
            try await Task.sleep(for: .seconds(1))
            let after = try TLSTestClient(host: "127.0.0.1", port: server.port, trusting: files.caFile)
            let (kept, answer) = try await thread.run { (try after.peerCertificatePEM(), try after.get("/hello")) }
            #expect(kept == rotated.certificatePEM)
            #expect(answer.status == 200)
        }
    }

    @Test(arguments: EventLoopKindTests.kinds)
    func aCloseIsOrderlyAResetIsAResetAndAHalfCloseIsAnswered(_ kind: HTTPServer.Configuration.EventLoopKind)
        async throws
    {
        let files = try Files()
        defer { files.remove() }
        var router = Self.router
        router.get("/reset") { _ in .fault(.reset) }
        router.get("/bye") { _ in .response(.text("bye", headers: ["Connection": "close"])) }
        try await withServer(files.configuration { $0.eventLoop = kind }, responder: router) { server in
            let thread = BlockingThread(name: "tls-client")
            defer { thread.finish() }
            // `Connection: close`: the answer, then close_notify (the client sees an orderly end of the stream).
            let closing = try TLSTestClient(host: "127.0.0.1", port: server.port, trusting: files.caFile)
            #expect(try await thread.run { try closing.get("/bye") }.status == 200)
            #expect(try await thread.run { closing.readEnd() } == "close_notify")
            // The reset fault: a reset, with no close_notify before it that would read as an orderly end.
            let reset = try TLSTestClient(host: "127.0.0.1", port: server.port, trusting: files.caFile)
            try await thread.run {
                try reset.connect()
                try reset.write(Array("GET /reset HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            }
            #expect(try await thread.run { reset.readEnd() } == "reset")
            // A client that sends its request and half-closes (EOF without close_notify) while the answer is being
            // computed still gets it: the EOF is the end of its requests, not a broken connection.
            let halfClosed = try TLSTestClient(host: "127.0.0.1", port: server.port, trusting: files.caFile)
            let answer = try await thread.run {
                try halfClosed.connect()
                try halfClosed.write(Array("GET /deferred?ms=200 HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
                halfClosed.shutdownWrite()
                return try halfClosed.readResponse()
            }
            #expect(answer.status == 200 && answer.body == Array("deferred 200".utf8))
        }
    }

    @Test func aCertificateThatDoesNotLoadStopsTheStart() throws {
        let files = try Files()
        defer { files.remove() }
        try "not a certificate".write(toFile: files.certificateFile, atomically: true, encoding: .utf8)
        let server = HTTPServer(configuration: files.configuration(), responder: Self.router)
        #expect {
            try server.start()
        } throws: { error in
            "\(error)".contains("certificate file \(files.certificateFile) does not load")
        }
    }

    @Test func issuedCertificatesNameTheirHostsAndExpire() throws {
        let authority = try TLSCertificateAuthority.makeAuthority(commonName: "CA")
        let leaf = try TLSCertificateAuthority.issue(
            hosts: ["localhost"], addresses: ["127.0.0.1", "::1", "10.0.2.2"], by: authority)
        #expect(
            try leaf.subjectAlternativeNames() == [
                "DNS:localhost", "IP:127.0.0.1", "IP:0:0:0:0:0:0:0:1", "IP:10.0.2.2",
            ])
        let days = try leaf.secondsUntilExpiry() / 86_400
        #expect(days == 396 || days == 397)
        #expect(try authority.certificateDER().first == 0x30, "a DER SEQUENCE")
    }
}
