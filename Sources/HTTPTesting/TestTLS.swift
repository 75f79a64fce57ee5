import CCrypto
import Foundation
import HTTPCore

/// Test runs over TLS: with `FLOW_BFF_TEST_TLS=1`, every ``HTTPTestClient`` connection speaks TLS (the server's
/// certificate is not verified: these runs test HTTP over TLS, ``TLSTestClient`` tests trust), and live suites that
/// build their servers with ``serverTLS`` serve HTTPS. `scripts/test` runs the HTTP/1.1 conformance suites this way.
public enum TestTLS {
    /// Whether `FLOW_BFF_TEST_TLS=1`.
    public static let isOn = ProcessInfo.processInfo.environment["FLOW_BFF_TEST_TLS"] == "1"

    /// A server certificate for 127.0.0.1 and localhost from a CA of this test process, in a temporary directory
    /// (made once).
    public static let serverTLS: HTTPServer.Configuration.TLS = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flow-bff-test-tls-\(getpid())")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let authority = try TLSCertificateAuthority.makeAuthority(commonName: "flow-bff test CA")
            let server = try TLSCertificateAuthority.issue(
                hosts: ["localhost"], addresses: ["127.0.0.1", "::1"], by: authority)
            let certificate = directory.appendingPathComponent("server.pem").path
            let key = directory.appendingPathComponent("server-key.pem").path
            try server.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
            try server.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
            return HTTPServer.Configuration.TLS(certificateChainFile: certificate, privateKeyFile: key)
        } catch {
            fatalError("test TLS certificate: \(error)")
        }
    }()

    /// The clients' context: TLS 1.2+, no verification.
    nonisolated(unsafe) static let clientContext: OpaquePointer = {
        // OpenSSL writes with write(2): a closed peer must be an error, not SIGPIPE for the test process.
        Platform.signal(SIGPIPE, ignore: true)
        guard let context = SSL_CTX_new(TLS_client_method()) else { fatalError("SSL_CTX_new") }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        return context
    }()
}
