import Foundation
import HTTPCore

/// The certificate authority of one developer's machine (docs/mock.md "HTTPS for devices"): a CA made once and
/// kept outside the repository, which a phone, simulator, emulator or browser is told to trust, and a server
/// certificate it signs for `localhost`, `127.0.0.1`, `::1`, the Android emulator's `10.0.2.2` and the machine's
/// LAN addresses — issued again when those names change or it nears its expiry. Exports for devices sit beside it:
/// `ca.pem`, `ca.crt` (DER, for Android's installer) and `flow-bff-ca.mobileconfig` (an iOS configuration profile).
public struct DevelopmentCA: Sendable {
    /// Paths of what ``ensure(hosts:addresses:)`` made or found, and what it did.
    public struct Outcome: Sendable, Equatable {
        public var certificateFile: String
        public var keyFile: String
        /// The names the server certificate is valid for (`DNS:localhost`, `IP:127.0.0.1`, …).
        public var names: [String]
        /// The CA was made now (devices must be told to trust it).
        public var createdAuthority: Bool
        /// The server certificate was issued now.
        public var issuedCertificate: Bool
    }

    /// The names every development certificate carries, before the LAN addresses.
    public static let standardHosts = ["localhost"]
    public static let standardAddresses = ["127.0.0.1", "::1", "10.0.2.2"]

    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The CA's home when the configuration names none (`tls.caDirectory`, `FLOW_BFF_TLS_CA_DIRECTORY`):
    /// `$XDG_DATA_HOME/flow-bff/ca`, else `~/.local/share/flow-bff/ca`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return data + "/flow-bff/ca" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/flow-bff/ca"
    }

    public var caCertificateFile: String { path("ca.pem") }
    public var caKeyFile: String { path("ca-key.pem") }
    /// The CA in DER, for Android's certificate installer.
    public var caDERFile: String { path("ca.crt") }
    /// An iOS configuration profile installing the CA.
    public var mobileConfigFile: String { path("flow-bff-ca.mobileconfig") }
    public var certificateFile: String { path("server.pem") }
    public var keyFile: String { path("server-key.pem") }
    /// The names the server certificate was issued for, one per line.
    var namesFile: String { path("server-names.txt") }

    /// Makes the CA if there is none, and a server certificate for `hosts` and `addresses` (plus the standard
    /// names) unless the one there already covers exactly those names and is valid for 30 more days.
    public func ensure(
        hosts: [String] = [], addresses: [String] = NetworkInterfaces.lanAddresses()
    ) throws -> Outcome {
        let files = FileManager.default
        try files.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var createdAuthority = false
        let authority: TLSIdentity
        if files.fileExists(atPath: caCertificateFile), files.fileExists(atPath: caKeyFile) {
            authority = TLSIdentity(
                certificatePEM: try String(contentsOfFile: caCertificateFile, encoding: .utf8),
                privateKeyPEM: try String(contentsOfFile: caKeyFile, encoding: .utf8))
        } else {
            let owner = ProcessInfo.processInfo.environment["USER"].map { "\($0)@" } ?? ""
            authority = try TLSCertificateAuthority.makeAuthority(
                commonName: "flow-bff development CA (\(owner)\(ProcessInfo.processInfo.hostName))")
            try write(authority.privateKeyPEM, to: caKeyFile, secret: true)
            try write(authority.certificatePEM, to: caCertificateFile, secret: false)
            createdAuthority = true
        }
        try writeExports(authority, replacing: createdAuthority)

        var hostList = Self.standardHosts
        for host in hosts where !hostList.contains(host) { hostList.append(host) }
        var addressList = Self.standardAddresses
        for address in addresses where !addressList.contains(address) { addressList.append(address) }
        let wanted = hostList.map { "DNS:\($0)" } + addressList.map { "IP:\($0)" }

        // The names the certificate there was issued for, as asked (`server-names.txt`).
        var current: TLSIdentity?
        if !createdAuthority, files.fileExists(atPath: keyFile),
            (try? String(contentsOfFile: namesFile, encoding: .utf8)) == wanted.joined(separator: "\n") + "\n"
        {
            current = (try? String(contentsOfFile: certificateFile, encoding: .utf8)).map {
                TLSIdentity(certificatePEM: $0, privateKeyPEM: "")
            }
        }
        if let current, (try? current.secondsUntilExpiry()) ?? 0 > 30 * 86_400 {
            return Outcome(
                certificateFile: certificateFile, keyFile: keyFile, names: wanted, createdAuthority: false,
                issuedCertificate: false)
        }
        let issued = try TLSCertificateAuthority.issue(hosts: hostList, addresses: addressList, by: authority)
        // The key first: a server watching the pair sees a mismatch for a moment at most, never a certificate whose
        // key is missing (it keeps the last good pair meanwhile).
        try write(issued.privateKeyPEM, to: keyFile, secret: true)
        try write(issued.certificatePEM, to: certificateFile, secret: false)
        try write(wanted.joined(separator: "\n") + "\n", to: namesFile, secret: false)
        return Outcome(
            certificateFile: certificateFile, keyFile: keyFile, names: wanted, createdAuthority: createdAuthority,
            issuedCertificate: true)
    }

    private func path(_ name: String) -> String {
        (directory as NSString).appendingPathComponent(name)
    }

    /// `ca.crt` and the `.mobileconfig`, made when missing or when the CA is new.
    private func writeExports(_ authority: TLSIdentity, replacing: Bool) throws {
        let files = FileManager.default
        let der = try authority.certificateDER()
        if replacing || !files.fileExists(atPath: caDERFile) {
            try Data(der).write(to: URL(fileURLWithPath: caDERFile), options: .atomic)
        }
        if replacing || !files.fileExists(atPath: mobileConfigFile) {
            try Self.mobileConfig(der: der).write(to: URL(fileURLWithPath: mobileConfigFile), options: .atomic)
        }
    }

    /// An iOS configuration profile (`com.apple.security.root` payload) with the CA; its identifiers derive from
    /// the certificate, so the same CA always gives the same profile.
    static func mobileConfig(der: [UInt8]) throws -> Data {
        let digest = Crypto.sha256(der)
        func uuid(_ salt: UInt8) -> String {
            var bytes = Array(Crypto.sha256(digest + [salt]).prefix(16))
            bytes[6] = (bytes[6] & 0x0F) | 0x50
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                )
            ).uuidString
        }
        let (payloadUUID, profileUUID) = (uuid(1), uuid(2))
        let payload: [String: Any] = [
            "PayloadCertificateFileName": "flow-bff-ca.cer",
            "PayloadContent": Data(der),
            "PayloadDescription": "Trusts the flow-bff development CA of this machine (HTTPS to the mock backend).",
            "PayloadDisplayName": "flow-bff development CA",
            "PayloadIdentifier": "dev.flow-bff.ca.\(payloadUUID)",
            "PayloadType": "com.apple.security.root",
            "PayloadUUID": payloadUUID,
            "PayloadVersion": 1,
        ]
        let profile: [String: Any] = [
            "PayloadContent": [payload],
            "PayloadDisplayName": "flow-bff development CA",
            "PayloadIdentifier": "dev.flow-bff.profile.\(profileUUID)",
            "PayloadRemovalDisallowed": false,
            "PayloadType": "Configuration",
            "PayloadUUID": profileUUID,
            "PayloadVersion": 1,
        ]
        return try PropertyListSerialization.data(fromPropertyList: profile, format: .xml, options: 0)
    }

    /// Writes through a temporary file renamed over `path`; a secret is readable by its owner only.
    private func write(_ text: String, to path: String, secret: Bool) throws {
        let temporary = path + ".tmp-\(getpid())"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: secret ? 0o600 : 0o644])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary]) }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, "errno": code])
        }
    }
}
