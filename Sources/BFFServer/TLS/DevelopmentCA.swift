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

    /// Makes the CA if there is none (or if its key does not match it), and a server certificate for `hosts` and
    /// `addresses` (plus the standard names and the DNS names asked for before, e.g. by `flow-bff cert --hosts`)
    /// unless the one there covers exactly those names, matches its key, was signed by this CA and is valid for 30
    /// more days. Holds an exclusive lock on the directory meanwhile: two processes never interleave their writes.
    public func ensure(
        hosts: [String] = [], addresses: [String] = NetworkInterfaces.lanAddresses()
    ) throws -> Outcome {
        let files = FileManager.default
        try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o700)
        let lock = open(path(".lock"), O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path(".lock")]) }
        defer { close(lock) }
        flock(lock, LOCK_EX)

        // The CA there, if its key matches it; else a new one (devices must then trust it again).
        let found = (try? String(contentsOfFile: caCertificateFile, encoding: .utf8)).flatMap { certificate in
            (try? String(contentsOfFile: caKeyFile, encoding: .utf8)).map {
                TLSIdentity(certificatePEM: certificate, privateKeyPEM: $0)
            }
        }.flatMap { TLSCertificateAuthority.isValid($0) ? $0 : nil }
        let createdAuthority = found == nil
        let authority: TLSIdentity
        if let found {
            authority = found
        } else {
            let owner = ProcessInfo.processInfo.environment["USER"].map { "\($0)@" } ?? ""
            authority = try TLSCertificateAuthority.makeAuthority(
                commonName: "flow-bff development CA (\(owner)\(ProcessInfo.processInfo.hostName))")
            try? files.removeItem(atPath: namesFile)
            try write(authority.privateKeyPEM, to: caKeyFile, secret: true)
            try write(authority.certificatePEM, to: caCertificateFile, secret: false)
        }
        try writeExports(authority, replacing: createdAuthority)

        let recorded = (try? String(contentsOfFile: namesFile, encoding: .utf8)) ?? ""
        var hostList = Self.standardHosts
        let stickyHosts = recorded.split(separator: "\n").filter { $0.hasPrefix("DNS:") }.map {
            String($0.dropFirst(4))
        }
        for host in stickyHosts + hosts where !hostList.contains(host) { hostList.append(host) }
        var addressList = Self.standardAddresses
        for address in addresses where !addressList.contains(address) { addressList.append(address) }
        let wanted = hostList.map { "DNS:\($0)" } + addressList.map { "IP:\($0)" }
        let namesText = wanted.joined(separator: "\n") + "\n"

        if !createdAuthority, recorded == namesText,
            let certificate = try? String(contentsOfFile: certificateFile, encoding: .utf8),
            let key = try? String(contentsOfFile: keyFile, encoding: .utf8)
        {
            let current = TLSIdentity(certificatePEM: certificate, privateKeyPEM: key)
            if TLSCertificateAuthority.isValid(current, issuedBy: authority),
                (try? current.secondsUntilExpiry()) ?? 0 > 30 * 86_400
            {
                return Outcome(
                    certificateFile: certificateFile, keyFile: keyFile, names: wanted, createdAuthority: false,
                    issuedCertificate: false)
            }
        }
        let issued = try TLSCertificateAuthority.issue(hosts: hostList, addresses: addressList, by: authority)
        // The names file goes first and comes back last: a write cut short is issued again on the next run. The key
        // before the certificate: a server watching the pair sees a mismatch for a moment at most, and keeps its
        // last good pair meanwhile.
        try? files.removeItem(atPath: namesFile)
        try write(issued.privateKeyPEM, to: keyFile, secret: true)
        try write(issued.certificatePEM, to: certificateFile, secret: false)
        try write(namesText, to: namesFile, secret: false)
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

    /// Writes through a temporary file renamed over `path`, synced first. A secret is created readable by its owner
    /// only (mode 0600 from its first byte, not changed afterwards).
    private func write(_ text: String, to path: String, secret: Bool) throws {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, secret ? 0o600 : 0o644)
        guard fd >= 0 else { throw Self.fileError(temporary) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Platform.write(fd, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let error = Self.fileError(temporary)
                close(fd)
                unlink(temporary)
                throw error
            }
            written += count
        }
        fsync(fd)
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = Self.fileError(path)
            unlink(temporary)
            throw error
        }
    }

    private static func fileError(_ path: String) -> CocoaError {
        CocoaError(
            .fileWriteUnknown,
            userInfo: [
                NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
            ])
    }
}
