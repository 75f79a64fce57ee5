#include <string.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// OpenSSL's macros and variadic calls, as functions Swift can call (HTTPCore's TLS, BFFServer's development CA).

static inline long flow_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

static inline long flow_ssl_ctx_set_modes(SSL_CTX *ctx) {
    // Partial writes (a write returns what the socket took) from a buffer that may move between retries; idle
    // connections' buffers released; the certificate chain sent as configured, not rebuilt from the trust store on
    // every handshake.
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                                     | SSL_MODE_RELEASE_BUFFERS | SSL_MODE_NO_AUTO_CHAIN);
}

static inline uint64_t flow_ssl_server_options(void) {
    // A peer's EOF without close_notify is an end of stream, as over TCP (HTTP's framing finds a truncation), not
    // a fatal error that would also drop the session from the cache.
    return SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION | SSL_OP_IGNORE_UNEXPECTED_EOF
        | SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1;
}

static inline long flow_ssl_ctx_set_session_cache_server(SSL_CTX *ctx) {
    return SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
}

/// ALPN: HTTP/1.1 only. A client that offers ALPN without it (an HTTP/2-only client) gets no protocol and
/// speaks HTTP/1.1 anyway or gives up; a client that offers it gets it.
static int flow_alpn_select_http11(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                   const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    static const unsigned char http11[] = "http/1.1";
    unsigned int index = 0;
    while (index < inlen) {
        unsigned int length = in[index];
        if (index + 1 + length > inlen) break;
        if (length == 8 && memcmp(in + index + 1, http11, 8) == 0) {
            *out = in + index + 1;
            *outlen = 8;
            return SSL_TLSEXT_ERR_OK;
        }
        index += 1 + length;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

static inline void flow_ssl_ctx_set_alpn_http11(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, flow_alpn_select_http11, NULL);
}

static inline EVP_PKEY *flow_ec_p256_keygen(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

static inline const char *flow_ssl_alpn_selected(const SSL *ssl, unsigned int *length) {
    const unsigned char *data = NULL;
    SSL_get0_alpn_selected(ssl, &data, length);
    return (const char *)data;
}

static inline long flow_ssl_set_sni(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
