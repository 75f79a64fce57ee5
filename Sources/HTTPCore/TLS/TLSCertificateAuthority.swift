import CCrypto

/// A certificate and its private key, PEM-encoded (what ``HTTPServer/Configuration/TLS`` reads from files).
public struct TLSIdentity: Sendable, Equatable {
    public var certificatePEM: String
    public var privateKeyPEM: String

    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// The certificate in DER (what Android's certificate installer and `.mobileconfig` profiles carry).
    public func certificateDER() throws(TLSError) -> [UInt8] {
        let certificate = try TLSCertificateAuthority.readCertificate(certificatePEM)
        defer { X509_free(certificate) }
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { throw TLSError.openSSL("TLS: certificate cannot be encoded") }
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_X509(certificate, &cursor)
        }
        return der
    }

    /// The names a certificate is valid for (its subject alternative names: `DNS:localhost`, `IP:127.0.0.1`, …),
    /// as OpenSSL prints them.
    public func subjectAlternativeNames() throws(TLSError) -> [String] {
        let certificate = try TLSCertificateAuthority.readCertificate(certificatePEM)
        defer { X509_free(certificate) }
        let index = X509_get_ext_by_NID(certificate, NID_subject_alt_name, -1)
        guard index >= 0, let ext = X509_get_ext(certificate, index) else { return [] }
        guard let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        guard X509V3_EXT_print(bio, ext, 0, 0) == 1 else { return [] }
        return TLSCertificateAuthority.drain(bio).split(separator: ",").map {
            String($0.trimmingPrefix(" ")).replacing("IP Address:", with: "IP:")
        }
    }

    /// Seconds until the certificate expires (negative once it has).
    public func secondsUntilExpiry() throws(TLSError) -> Int {
        let certificate = try TLSCertificateAuthority.readCertificate(certificatePEM)
        defer { X509_free(certificate) }
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, X509_get0_notAfter(certificate)) == 1 else {
            throw TLSError.openSSL("TLS: certificate expiry cannot be read")
        }
        return Int(days) * 86_400 + Int(seconds)
    }
}

/// Issues certificates with libcrypto: a development certificate authority (a CA a phone or browser is told to
/// trust) and server certificates it signs for a list of host names and IP addresses. EC P-256 keys, SHA-256
/// signatures, X.509 v3 with the extensions platforms check (basic constraints, key usage, server-auth extended key
/// usage, subject alternative names, key identifiers).
public enum TLSCertificateAuthority {
    /// A self-signed CA certificate valid for `days`.
    public static func makeAuthority(commonName: String, days: Int = 3650) throws(TLSError) -> TLSIdentity {
        let key = try makeKey()
        defer { EVP_PKEY_free(key) }
        let certificate = try makeCertificate(subject: commonName, key: key, days: days)
        defer { X509_free(certificate) }
        guard X509_set_issuer_name(certificate, X509_get_subject_name(certificate)) == 1 else {
            throw TLSError.openSSL("TLS: issuer")
        }
        try addExtensions(
            certificate, issuer: certificate,
            [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ])
        try sign(certificate, key)
        return try identity(certificate, key)
    }

    /// A server certificate for `hosts` (DNS names) and `addresses` (IPv4 or IPv6), signed by `authority`, valid
    /// for `days` from an hour ago. The default, 397 days, keeps the whole span under the 398 days browsers allow
    /// publicly trusted certificates (Apple platforms refuse more than 825 days for any server certificate).
    public static func issue(
        hosts: [String], addresses: [String], by authority: TLSIdentity, days: Int = 397
    ) throws(TLSError) -> TLSIdentity {
        let authorityCertificate = try readCertificate(authority.certificatePEM)
        defer { X509_free(authorityCertificate) }
        let authorityKey = try readKey(authority.privateKeyPEM)
        defer { EVP_PKEY_free(authorityKey) }
        let key = try makeKey()
        defer { EVP_PKEY_free(key) }
        let certificate = try makeCertificate(
            subject: hosts.first ?? addresses.first ?? "localhost", key: key, days: days)
        defer { X509_free(certificate) }
        guard X509_set_issuer_name(certificate, X509_get_subject_name(authorityCertificate)) == 1 else {
            throw TLSError.openSSL("TLS: issuer")
        }
        let names = (hosts.map { "DNS:\($0)" } + addresses.map { "IP:\($0)" }).joined(separator: ",")
        try addExtensions(
            certificate, issuer: authorityCertificate,
            [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_alt_name, names),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ])
        try sign(certificate, authorityKey)
        return try identity(certificate, key)
    }

    /// Whether `identity`'s key matches its certificate and, given `authority`, the certificate carries the
    /// authority's signature: a pair worth keeping.
    public static func isValid(_ identity: TLSIdentity, issuedBy authority: TLSIdentity? = nil) -> Bool {
        guard let certificate = try? readCertificate(identity.certificatePEM) else { return false }
        defer { X509_free(certificate) }
        guard let key = try? readKey(identity.privateKeyPEM) else { return false }
        defer { EVP_PKEY_free(key) }
        defer { ERR_clear_error() }
        guard X509_check_private_key(certificate, key) == 1 else { return false }
        guard let authority else { return true }
        guard let issuer = try? readCertificate(authority.certificatePEM) else { return false }
        defer { X509_free(issuer) }
        guard let issuerKey = X509_get0_pubkey(issuer) else { return false }
        return X509_verify(certificate, issuerKey) == 1
    }

    // MARK: libcrypto

    private static func makeKey() throws(TLSError) -> OpaquePointer {
        guard let key = flow_ec_p256_keygen() else { throw TLSError.openSSL("TLS: key generation") }
        return key
    }

    private static func makeCertificate(subject: String, key: OpaquePointer, days: Int) throws(TLSError)
        -> OpaquePointer
    {
        guard let certificate = X509_new() else { throw TLSError.openSSL("TLS: certificate") }
        var ok = X509_set_version(certificate, 2) == 1
        // A random 128-bit serial number, positive.
        var serial = [UInt8](repeating: 0, count: 16)
        ok = ok && RAND_bytes(&serial, 16) == 1
        serial[0] &= 0x7F
        if ok, let number = BN_bin2bn(serial, 16, nil) {
            ok = BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil
            BN_free(number)
        } else {
            ok = false
        }
        // Valid from an hour ago: a device whose clock is a little behind still accepts it.
        ok = ok && X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil
        ok = ok && X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86_400) != nil
        ok = ok && X509_set_pubkey(certificate, key) == 1
        let name = X509_get_subject_name(certificate)
        ok = ok && X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "flow-bff development", -1, -1, 0) == 1
        ok = ok && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, subject, -1, -1, 0) == 1
        guard ok else {
            X509_free(certificate)
            throw TLSError.openSSL("TLS: certificate fields")
        }
        return certificate
    }

    private static func addExtensions(
        _ certificate: OpaquePointer, issuer: OpaquePointer, _ extensions: [(Int32, String)]
    ) throws(TLSError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, certificate, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw TLSError.openSSL("TLS: extension \(String(cString: OBJ_nid2sn(nid))) = \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(certificate, ext, -1) == 1 else {
                throw TLSError.openSSL("TLS: extension \(String(cString: OBJ_nid2sn(nid)))")
            }
        }
    }

    private static func sign(_ certificate: OpaquePointer, _ key: OpaquePointer) throws(TLSError) {
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw TLSError.openSSL("TLS: signing") }
    }

    private static func identity(_ certificate: OpaquePointer, _ key: OpaquePointer) throws(TLSError) -> TLSIdentity {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TLSError.openSSL("TLS: memory") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, certificate) == 1 else { throw TLSError.openSSL("TLS: certificate PEM") }
        let certificatePEM = drain(bio)
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            throw TLSError.openSSL("TLS: key PEM")
        }
        return TLSIdentity(certificatePEM: certificatePEM, privateKeyPEM: drain(bio))
    }

    /// The PEM text of an X.509 certificate (`X509 *`); empty if it cannot be encoded.
    package static func pem(ofCertificate certificate: OpaquePointer) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, certificate) == 1 else { return "" }
        return drain(bio)
    }

    static func drain(_ bio: OpaquePointer) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = BIO_read(bio, &buffer, Int32(buffer.count))
            if count <= 0 { break }
            bytes += buffer[0..<Int(count)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func readCertificate(_ pem: String) throws(TLSError) -> OpaquePointer {
        guard let certificate = withMemoryBIO(pem, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw TLSError.openSSL("TLS: not a PEM certificate")
        }
        return certificate
    }

    static func readKey(_ pem: String) throws(TLSError) -> OpaquePointer {
        guard let key = withMemoryBIO(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw TLSError.openSSL("TLS: not a PEM private key")
        }
        return key
    }

    /// Runs `read` on a read-only memory BIO over `text`'s bytes. `BIO_new_mem_buf` does not copy: the BIO is used
    /// and freed while the bytes are pinned (found by `fuzz-http-over-tls` under AddressSanitizer: a BIO made from
    /// an array's temporary pointer read freed memory).
    private static func withMemoryBIO(_ text: String, _ read: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
    }
}
