-- Every request asks the server to close: wrk reconnects, so each request costs a new TCP connection and a full
-- TLS handshake (wrk keeps no TLS session to resume).
wrk.headers["Connection"] = "close"
