import CCrypto

/// A TLS configuration that cannot be used: a certificate or key file that does not load, a key that does not
/// match its certificate. `message` names the file and OpenSSL's reason.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }

    /// `message` followed by OpenSSL's queued reasons (the queue is emptied).
    static func openSSL(_ message: String) -> TLSError {
        let reasons = drainErrorQueue()
        return TLSError(reasons.isEmpty ? message : "\(message): \(reasons)")
    }

    /// OpenSSL's queued error reasons, joined; the queue is emptied.
    package static func drainErrorQueue() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.joined(separator: "; ")
    }
}
