import BFFServer
import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Testing

/// HTTPS beside HTTP with the development CA (docs/mock.md "HTTPS for devices"), fetched by curl (OpenSSL) as a
/// developer's terminal or a CI job does: a page, its next chunks and an action over TLS; a client that does not
/// trust the CA or offers only old protocols is refused.
@Suite("HTTPS (curl, development CA)")
struct HTTPSServeTests {
    static let curl = "/usr/bin/curl"

    /// A mock-mode server on free HTTP and HTTPS ports, its CA in a fresh directory.
    func withHTTPSServer(_ body: (TestServer, DevelopmentCA, Int) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flow-bff-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = BFFConfiguration()
        configuration.mock.enabled = true
        configuration.mock.watch = .off
        configuration.logging.accessLog = false
        configuration.tls.port = 0
        configuration.tls.caDirectory = directory.path
        try await withTestServer(configuration: configuration, cursorKey: String(repeating: "k", count: 32)) { server in
            let tlsPort = try #require(server.service.tlsServer?.port)
            #expect(server.service.developmentCA?.createdAuthority == true)
            try await body(server, DevelopmentCA(directory: directory.path), tlsPort)
        }
    }

    func curl(_ arguments: [String]) async throws -> FlowBFFProcess.Run {
        try await FlowBFFProcess.run(tool: Self.curl, ["-sS", "--max-time", "20"] + arguments)
    }

    /// The body curl printed before the `-w` line `\n<status>`.
    func split(_ output: String) -> (body: String, status: String) {
        guard let newline = output.lastIndex(of: "\n") else { return (output, "") }
        return (String(output[..<newline]), String(output[output.index(after: newline)...]))
    }

    @Test func curlFetchesAPagePaginatesAndPostsAnActionOverHTTPS() async throws {
        try await withHTTPSServer { _, authority, port in
            let base = "https://127.0.0.1:\(port)"
            let trust = ["--cacert", authority.caCertificateFile]
            let first = try await curl(trust + ["-v", "-w", "\n%{http_code}", "\(base)/v1/pages/feed"])
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.errors.contains("SSL connection using TLSv1.3"))
            #expect(first.errors.contains("ALPN: server accepted http/1.1"))
            let (body, status) = split(first.output)
            #expect(status == "200")
            var page = try PageDecoder().decodePage(Array(body.utf8)).value
            var sections = page.sections.count
            var chunks = 0
            while let postback = page.pagination?.postback, page.hasMore, chunks < 50 {
                chunks += 1
                let next = try await curl(
                    trust + ["-w", "\n%{http_code}", "\(base)/v1/pages/feed/next?postback=\(postback)"])
                let (nextBody, nextStatus) = split(next.output)
                #expect(nextStatus == "200", "\(next.errors)")
                let chunk = try PageDecoder().decodeNextPage(Array(nextBody.utf8)).value
                sections += chunk.sections.count
                page.pagination = chunk.pagination
            }
            #expect(chunks > 1 && sections == 48, "the feed's 48 sections in \(chunks + 1) chunks over HTTPS")

            let action = try await curl(
                trust + [
                    "-w", "\n%{http_code}", "-H", "Content-Type: application/json", "--data",
                    #"{"pageID": "cart", "widgetID": "qty.p-1042", "event": "change", "value": 3, "payload": {"productID": "p-1042"}}"#,
                    "\(base)/v1/actions/cart.setQuantity",
                ])
            let (answer, actionStatus) = split(action.output)
            #expect(actionStatus == "200", "\(answer.prefix(300)) \(action.errors)")
            #expect(try PageDecoder().decodeActionResponse(Array(answer.utf8)).value.mutations.isEmpty == false)
        }
    }

    @Test func clientsThatDoNotTrustTheCAOrOfferOldProtocolsAreRefused() async throws {
        try await withHTTPSServer { server, authority, port in
            // The system's trust store, which does not hold this machine's CA.
            let untrusted = try await curl(["https://127.0.0.1:\(port)/healthz"])
            #expect(untrusted.status == 60, "SSL certificate problem: \(untrusted.errors)")
            let old = try await curl(
                [
                    "--cacert", authority.caCertificateFile, "--tlsv1.1", "--tls-max", "1.1",
                    "https://127.0.0.1:\(port)/healthz",
                ])
            #expect(old.status == 35, "protocol version alert: \(old.errors)")
            // TLS 1.2 with the CA still works, and HTTP on the other port is unchanged.
            let twelve = try await curl(
                [
                    "--cacert", authority.caCertificateFile, "--tls-max", "1.2", "-w", "%{http_code}",
                    "https://127.0.0.1:\(port)/healthz",
                ])
            #expect(twelve.output.hasSuffix("200"), "\(twelve.errors)")
            #expect(try await HTTPTestClient(port: server.port).get("/healthz").status == 200)
        }
    }

    @Test func theDevelopmentCAIsMadeOnceAndItsCertificateIssuedAgainOnlyWhenNamesChange() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flow-bff-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let authority = DevelopmentCA(directory: directory.path)
        let first = try authority.ensure(addresses: ["192.0.2.7"])
        #expect(first.createdAuthority && first.issuedCertificate)
        #expect(first.names == ["DNS:localhost", "IP:127.0.0.1", "IP:::1", "IP:10.0.2.2", "IP:192.0.2.7"])
        let caPEM = try String(contentsOfFile: authority.caCertificateFile, encoding: .utf8)
        let certificatePEM = try String(contentsOfFile: authority.certificateFile, encoding: .utf8)
        let leaf = TLSIdentity(certificatePEM: certificatePEM, privateKeyPEM: "")
        #expect(
            try leaf.subjectAlternativeNames()
                == ["DNS:localhost", "IP:127.0.0.1", "IP:0:0:0:0:0:0:0:1", "IP:10.0.2.2", "IP:192.0.2.7"])

        let again = try authority.ensure(addresses: ["192.0.2.7"])
        #expect(!again.createdAuthority && !again.issuedCertificate)
        #expect(try String(contentsOfFile: authority.certificateFile, encoding: .utf8) == certificatePEM)

        // The LAN address changed: a new certificate from the same CA.
        let moved = try authority.ensure(addresses: ["192.0.2.8"])
        #expect(!moved.createdAuthority && moved.issuedCertificate)
        #expect(try String(contentsOfFile: authority.caCertificateFile, encoding: .utf8) == caPEM)

        // Secrets are the owner's only.
        for file in [authority.caKeyFile, authority.keyFile] {
            let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(permissions == 0o600, "\(file)")
        }
        // The iOS profile carries the CA's DER under a root-certificate payload.
        let profile = try PropertyListSerialization.propertyList(
            from: Data(contentsOf: URL(fileURLWithPath: authority.mobileConfigFile)), format: nil)
        let payloads = try #require((profile as? [String: Any])?["PayloadContent"] as? [[String: Any]])
        #expect(payloads.first?["PayloadType"] as? String == "com.apple.security.root")
        let der = try Data(contentsOf: URL(fileURLWithPath: authority.caDERFile))
        #expect(payloads.first?["PayloadContent"] as? Data == der)
        #expect(try TLSIdentity(certificatePEM: caPEM, privateKeyPEM: "").certificateDER() == Array(der))
    }

    @Test func namesAskedForOnceStayAndABrokenPairIsMadeAgain() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flow-bff-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let authority = DevelopmentCA(directory: directory.path)
        // `flow-bff cert --hosts mymac.local`, then `serve --dev --tls` (which asks for no extra name).
        let named = try authority.ensure(hosts: ["mymac.local"], addresses: [])
        #expect(named.names.contains("DNS:mymac.local"))
        let served = try authority.ensure(addresses: [])
        #expect(!served.issuedCertificate && served.names.contains("DNS:mymac.local"))

        // A server key that does not match the certificate (a write cut short): issued again, and the pair matches.
        let stranger = try TLSCertificateAuthority.makeAuthority(commonName: "stranger")
        try stranger.privateKeyPEM.write(toFile: authority.keyFile, atomically: true, encoding: .utf8)
        let mended = try authority.ensure(addresses: [])
        #expect(mended.issuedCertificate && !mended.createdAuthority)
        let ca = TLSIdentity(
            certificatePEM: try String(contentsOfFile: authority.caCertificateFile, encoding: .utf8),
            privateKeyPEM: try String(contentsOfFile: authority.caKeyFile, encoding: .utf8))
        let pair = TLSIdentity(
            certificatePEM: try String(contentsOfFile: authority.certificateFile, encoding: .utf8),
            privateKeyPEM: try String(contentsOfFile: authority.keyFile, encoding: .utf8))
        #expect(TLSCertificateAuthority.isValid(pair, issuedBy: ca))
        #expect(!TLSCertificateAuthority.isValid(pair, issuedBy: stranger))

        // A CA key that does not match its certificate: a new CA (devices must trust it again), a new certificate.
        try stranger.privateKeyPEM.write(toFile: authority.caKeyFile, atomically: true, encoding: .utf8)
        let renewed = try authority.ensure(addresses: [])
        #expect(renewed.createdAuthority && renewed.issuedCertificate)
        #expect(renewed.names.contains("DNS:mymac.local") == false, "a new CA starts from the standard names")
    }

    @Test func productionNeedsCertificateFiles() throws {
        #expect {
            try ConfigurationLoader().load(files: [], environment: [:], flags: ["tls.port": "8443"])
        } throws: { error in
            (error as? ConfigurationError)?.key == "tls.certificateFile"
        }
        #expect {
            try ConfigurationLoader().load(
                files: [], environment: [:],
                flags: ["tls.port": "8443", "tls.keyFile": "/k.pem", "mock.enabled": "true"])
        } throws: { error in
            (error as? ConfigurationError)?.key == "tls.certificateFile"
        }
        let development = try ConfigurationLoader().load(
            files: [], environment: [:], flags: ["tls.port": "8443", "mock.enabled": "true"])
        #expect(development.tls.usesDevelopmentCA && development.tls.port == 8443)
    }
}
