import CCrypto

/// One connection's TLS state: an OpenSSL `SSL` on the connection's non-blocking socket. Every call returns at
/// once; what OpenSSL needs next (the socket readable or writable) comes back as the result, and the connection's
/// loop waits for that readiness, so a handshake never holds a thread.
package final class TLSSession {
    package enum Result: Equatable {
        /// Bytes read or written (a handshake step: done).
        case bytes(Int)
        /// Call again once the socket is readable.
        case wantRead
        /// Call again once the socket is writable.
        case wantWrite
        /// The peer closed the TLS session (close_notify) or the connection (EOF).
        case closed
        /// A protocol error: bad record, failed handshake, unknown CA alert. The connection cannot go on.
        case failed(String)
    }

    private let ssl: OpaquePointer
    /// Set while a write must be retried: OpenSSL wants the same bytes again.
    var retryLength: Int?
    package private(set) var handshakeDone = false
    /// A read that must wait for the socket to be writable (a TLS 1.3 key update answered into a full send buffer).
    private(set) var readWantsWritable = false
    /// A write that must wait for the socket to be readable.
    private(set) var writeWantsReadable = false
    /// A fatal error happened: no close_notify may be sent any more (`SSL_shutdown` is not allowed then).
    private var fatal = false

    package init?(context: OpaquePointer, fd: Int32) {
        guard let ssl = SSL_new(context) else { return nil }
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_accept_state(ssl)
        self.ssl = ssl
    }

    deinit { SSL_free(ssl) }

    /// Advances the handshake; `.bytes(0)` once it is done.
    package func handshake() -> Result {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeDone = true
            return .bytes(0)
        }
        return outcome(of: result)
    }

    /// Decrypted bytes into `buffer`. Without read-ahead OpenSSL takes one record at a time from the socket and
    /// a 64 KiB buffer holds a whole one, so nothing stays inside OpenSSL unannounced: what is left of the stream is
    /// still in the socket, and the loop hears of it.
    package func read(_ buffer: UnsafeMutableRawBufferPointer) -> Result {
        ERR_clear_error()
        let result = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        let outcome = result > 0 ? .bytes(Int(result)) : outcome(of: result)
        readWantsWritable = outcome == .wantWrite
        return outcome
    }

    package func write(_ bytes: UnsafeRawBufferPointer) -> Result {
        guard bytes.count > 0 else { return .bytes(0) }
        ERR_clear_error()
        let result = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        let outcome = result > 0 ? .bytes(Int(result)) : outcome(of: result)
        writeWantsReadable = outcome == .wantRead
        return outcome
    }

    /// Sends close_notify (once; what the socket does not take is dropped: the socket closes next). Not after a
    /// fatal error, nor before the handshake is done.
    package func notifyClose() {
        guard handshakeDone, !fatal else { return }
        fatal = true
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    private func outcome(of result: Int32) -> Result {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
            // A reset or an EOF the TLS layer could not report otherwise: the connection is over.
            fatal = true
            return .closed
        default:
            fatal = true
            return .failed(TLSError.drainErrorQueue())
        }
    }
}
