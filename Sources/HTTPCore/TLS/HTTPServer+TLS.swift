extension HTTPServer.Configuration {
    /// HTTPS: every connection of the server speaks TLS 1.2 or 1.3 (OpenSSL's libssl), with ALPN `http/1.1`,
    /// session resumption (tickets and a server-side cache), and the same limits and timeouts as cleartext — the
    /// handshake counts against ``Timeouts/headerRead``. To serve HTTP and HTTPS at once, run two servers on one
    /// responder (BFFServer's `tls.port` does).
    public struct TLS: Sendable, Equatable {
        /// A PEM file: the server's certificate, then its chain (intermediates), as cert-manager and ACME clients
        /// write `tls.crt` / `fullchain.pem`.
        public var certificateChainFile: String
        /// A PEM file: the certificate's private key (PKCS #8, RSA or EC).
        public var privateKeyFile: String
        /// How often the two files are checked for a change. New connections get a changed certificate; open ones
        /// keep the one they started with, so nothing is dropped. A pair that does not load (a half-written
        /// rotation) is logged and the last good one kept.
        public var reloadInterval: Duration = .milliseconds(500)
        /// The TLS 1.2 cipher suites (OpenSSL's cipher-list syntax): forward-secret AEAD suites only. TLS 1.3 uses
        /// OpenSSL's default suites, all AEAD.
        public var cipherList = "ECDHE+AESGCM:ECDHE+CHACHA20"

        public init(certificateChainFile: String, privateKeyFile: String) {
            self.certificateChainFile = certificateChainFile
            self.privateKeyFile = privateKeyFile
        }
    }
}
