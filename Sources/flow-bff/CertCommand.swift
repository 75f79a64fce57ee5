// `flow-bff cert`: the development CA and an HTTPS certificate for this machine (docs/mock.md "HTTPS for devices").
import BFFServer
import Foundation

/// `flow-bff cert [--ca-dir DIR] [--hosts NAME,…]`: never returns.
func certCommand(_ arguments: CommandLineArguments) -> Never {
    let configuration = loadConfiguration(arguments)
    let directory =
        configuration.tls.caDirectory.isEmpty ? DevelopmentCA.defaultDirectory() : configuration.tls.caDirectory
    let hosts = (arguments.flags["hosts"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
    let outcome: DevelopmentCA.Outcome
    do {
        outcome = try DevelopmentCA(directory: directory).ensure(hosts: hosts)
    } catch {
        fail("cert: \(directory): \(error)")
    }
    let authority = DevelopmentCA(directory: directory)
    for line in CertCommand.banner(outcome, directory: directory) { print(line) }
    print(
        """
        server certificate: \(outcome.certificateFile)
        server key:         \(outcome.keyFile)
        valid for:          \(outcome.names.joined(separator: " "))

        serve with it:      flow-bff serve --dev --tls --host 0.0.0.0
                            (or --tls-cert \(outcome.certificateFile) --tls-key \(outcome.keyFile))
        trust the CA:
          curl              curl --cacert \(authority.caCertificateFile) https://localhost:8443/healthz
          iOS simulator     xcrun simctl keychain booted add-root-cert \(authority.caCertificateFile)
          iPhone, iPad      open \(authority.mobileConfigFile) on the device (AirDrop, mail), install the
                            profile, then Settings > General > About > Certificate Trust Settings: turn it on
          Android emulator  adb push \(authority.caDERFile) /sdcard/Download/ and install it in Settings >
                            Security > Encryption & credentials > Install a certificate > CA certificate
          Android app       the debug build trusts user CAs with network_security_config.xml (docs/mock.md)
        """)
    exit(0)
}

enum CertCommand {
    /// The lines `serve` and `cert` print about the development CA.
    static func banner(_ outcome: DevelopmentCA.Outcome, directory: String) -> [String] {
        let directory = directory.isEmpty ? DevelopmentCA.defaultDirectory() : directory
        let authority = DevelopmentCA(directory: directory)
        var lines = [
            "  development CA: \(authority.caCertificateFile)\(outcome.createdAuthority ? " (new: devices must trust it again)" : "")",
            "    for devices: \(authority.caDERFile) (Android), \(authority.mobileConfigFile) (iOS); docs/mock.md \"HTTPS for devices\"",
        ]
        if outcome.issuedCertificate {
            lines.append("    certificate issued for \(outcome.names.joined(separator: " "))")
        }
        return lines
    }
}
