import CCrypto
import Synchronization

/// The server's OpenSSL context (`SSL_CTX`): certificate, key and protocol settings, shared by every loop. Reloaded
/// when the certificate or key file changes on disk (``check(now:)``, when connections are accepted): new sessions
/// use the new context, open ones keep theirs (an `SSL` holds a reference to the context it was made from). A new
/// context has new session-ticket keys and an empty session cache: clients resume only after their next full
/// handshake.
// @unchecked Sendable: the context pointer and file state live in a Mutex; an `SSL_CTX` may be used by several
// threads at once to make sessions (OpenSSL locks its own shared state).
package final class TLSContext: @unchecked Sendable {
    /// An `SSL_CTX`, reference-counted by OpenSSL and safe to share between threads.
    // @unchecked Sendable: OpenSSL locks a context's shared state itself.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct State {
        var context: Context
        var files: FileSignature
        /// The signature of a pair that failed to load: logged once, retried when the files change again.
        var failed: FileSignature?
    }

    /// What a file change changes: inode, size and modification time of both files.
    struct FileSignature: Equatable {
        var certificate: [Int64]
        var key: [Int64]

        init(_ tls: HTTPServer.Configuration.TLS) {
            certificate = Self.stamp(tls.certificateChainFile)
            key = Self.stamp(tls.privateKeyFile)
        }

        private static func stamp(_ path: String) -> [Int64] {
            Platform.fileStamp(path).map { [$0.inode, $0.size, $0.modifiedSeconds, $0.modifiedNanoseconds] } ?? []
        }
    }

    let configuration: HTTPServer.Configuration.TLS
    private let interval: UInt64
    private let state: Mutex<State>
    /// When the files are looked at next (loop clock): read without the lock on every accept.
    private let nextCheck = Atomic<UInt64>(0)

    package init(_ configuration: HTTPServer.Configuration.TLS) throws(TLSError) {
        self.configuration = configuration
        interval = configuration.reloadInterval.nanoseconds
        let files = FileSignature(configuration)
        state = Mutex(State(context: Context(pointer: try Self.makeContext(configuration)), files: files))
    }

    deinit {
        state.withLock { SSL_CTX_free($0.context.pointer) }
    }

    /// A session for a newly accepted socket; `nil` when OpenSSL cannot allocate one. The context is referenced
    /// under the lock (a reload releases the old one) and the session made outside it.
    package func makeSession(fd: Int32) -> TLSSession? {
        let context = state.withLock { state -> Context in
            SSL_CTX_up_ref(state.context.pointer)
            return state.context
        }
        defer { SSL_CTX_free(context.pointer) }
        return TLSSession(context: context.pointer, fd: fd)
    }

    /// Reloads the certificate and key if either file changed, at most once per
    /// ``HTTPServer/Configuration/TLS/reloadInterval``; returns an error to log when a changed pair does not load (the
    /// last good one stays). The check and the reload hold the lock: a loop accepting meanwhile waits for the new
    /// context rather than handing out the old one (a reload happens only when the files change).
    func check(now: UInt64) -> TLSError? {
        let due = nextCheck.load(ordering: .relaxed)
        guard now >= due,
            nextCheck.compareExchange(expected: due, desired: now &+ interval, ordering: .relaxed).exchanged
        else { return nil }
        return state.withLock { state -> TLSError? in
            let files = FileSignature(configuration)
            guard state.files != files, state.failed != files else { return nil }
            switch Result(catching: { () throws(TLSError) in try Self.makeContext(configuration) }) {
            case .success(let context):
                SSL_CTX_free(state.context.pointer)
                state.context = Context(pointer: context)
                state.files = files
                state.failed = nil
                return nil
            case .failure(let error):
                state.failed = files
                return error
            }
        }
    }

    static func makeContext(_ tls: HTTPServer.Configuration.TLS) throws(TLSError) -> OpaquePointer {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError.openSSL("TLS: cannot create a context")
        }
        do {
            try configure(context, tls)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        return context
    }

    private static func configure(_ context: OpaquePointer, _ tls: HTTPServer.Configuration.TLS) throws(TLSError) {
        guard flow_ssl_ctx_set_min_tls12(context) == 1 else { throw TLSError.openSSL("TLS: minimum version") }
        SSL_CTX_set_options(context, flow_ssl_server_options())
        _ = flow_ssl_ctx_set_modes(context)
        guard SSL_CTX_set_cipher_list(context, tls.cipherList) == 1 else {
            throw TLSError.openSSL("TLS: cipher list \"\(tls.cipherList)\"")
        }
        _ = flow_ssl_ctx_set_session_cache_server(context)
        let sessionContext: [UInt8] = Array("flow-bff".utf8)
        _ = SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
        flow_ssl_ctx_set_alpn_http11(context)
        guard SSL_CTX_use_certificate_chain_file(context, tls.certificateChainFile) == 1 else {
            throw TLSError.openSSL("TLS: certificate file \(tls.certificateChainFile) does not load")
        }
        guard SSL_CTX_use_PrivateKey_file(context, tls.privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError.openSSL("TLS: private key file \(tls.privateKeyFile) does not load")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError.openSSL(
                "TLS: the key in \(tls.privateKeyFile) does not match the certificate in \(tls.certificateChainFile)")
        }
    }
}
