import Foundation
import HTTPCore

extension BFFConfiguration {
    /// HTTPS beside HTTP (docs/mock.md "HTTPS for devices", docs/operations.md "TLS"): a second listener on
    /// ``port`` serving the same application over TLS 1.2/1.3. Off while ``port`` is `nil`.
    public struct TLS: Sendable, Hashable {
        public init() {}

        /// The HTTPS port (`serve --tls-port PORT`, or `--tls` for 8443); 0 picks a free one. `nil`: no HTTPS.
        /// Default `nil`.
        public var port: Int? = nil
        /// PEM file with the server certificate and its chain (`tls.crt`, `fullchain.pem`). Re-read for new
        /// connections when it changes. Empty in mock mode: a certificate from the development CA. Default empty.
        public var certificateFile = ""
        /// PEM file with the certificate's private key. Default empty.
        public var keyFile = ""
        /// Where the development CA and the certificate it issues are kept (mock mode without certificate files;
        /// `flow-bff cert`). Empty: `$XDG_DATA_HOME/flow-bff/ca`, else `~/.local/share/flow-bff/ca` — never inside
        /// the repository. Default empty.
        public var caDirectory = ""

        /// Whether an HTTPS listener is configured.
        public var isEnabled: Bool { port != nil }

        /// Whether the certificate comes from the development CA (no files configured).
        public var usesDevelopmentCA: Bool { certificateFile.isEmpty && keyFile.isEmpty }
    }
}

extension ConfigurationKey {
    /// The `tls.*` keys, appended to ``all``.
    static let tlsKeys: [ConfigurationKey] = [
        .integer(
            "tls.port", 0, 0...65_535,
            "HTTPS port beside `server.port` (`serve --tls-port PORT`; `--tls` for 8443); 0 picks a free port.",
            defaultText: "(none: HTTP only)"
        ) { $0.tls.port = $1 },
        .string(
            "tls.certificateFile", "(none)",
            "PEM certificate and chain; re-read for new connections when it changes. None in mock mode: the "
                + "development CA issues one."
        ) { $0.tls.certificateFile = $1 },
        .string("tls.keyFile", "(none)", "PEM private key of `tls.certificateFile`.") { $0.tls.keyFile = $1 },
        .string(
            "tls.caDirectory", "(per user)",
            "Where the development CA lives; none: `$XDG_DATA_HOME/flow-bff/ca`, else `~/.local/share/flow-bff/ca`."
        ) { $0.tls.caDirectory = $1 },
    ]

    /// Cross-key checks of `tls.*` (``ConfigurationLoader``).
    static func checkTLS(_ configuration: BFFConfiguration) throws(ConfigurationError) {
        let tls = configuration.tls
        if tls.certificateFile.isEmpty != tls.keyFile.isEmpty {
            throw ConfigurationError(
                code: "invalid_value", key: tls.certificateFile.isEmpty ? "tls.certificateFile" : "tls.keyFile",
                message: "set both tls.certificateFile and tls.keyFile, or neither")
        }
        if tls.isEnabled, tls.usesDevelopmentCA, !configuration.mock.enabled {
            throw ConfigurationError(
                code: "invalid_value", key: "tls.certificateFile",
                message:
                    "HTTPS in production needs tls.certificateFile and tls.keyFile; the development CA is for mock mode (serve --dev --tls)"
            )
        }
    }
}
