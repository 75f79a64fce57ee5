"""Raw-socket probes of the HTTP parser's strictness rules against a running flow-bff (docs/http.md § Strictness).

Usage: python3 Tests/api/http_strictness.py PORT   (run by scripts/api-fuzz; loopback only, bounded by timeouts)

Each probe sends one malformed request on a new connection and expects the documented status, an
application/problem+json body with the documented snake_case code, and the connection closed afterwards.
"""

import json
import socket
import sys

PROBES = [
    # (name, raw request, status, code)
    ("Transfer-Encoding: ,chunked", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: ,chunked\r\n\r\n0\r\n\r\n", 400, "invalid_transfer_encoding"),
    ("Transfer-Encoding: chunked,", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked,\r\n\r\n0\r\n\r\n", 400, "invalid_transfer_encoding"),
    ("Transfer-Encoding: , ,chunked", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: , ,chunked\r\n\r\n0\r\n\r\n", 400, "invalid_transfer_encoding"),
    ("Transfer-Encoding: gzip, chunked", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, "unsupported_transfer_coding"),
    ("chunk extension 5;", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5;\r\nhello\r\n0\r\n\r\n", 400, "invalid_chunk_extension"),
    ("chunk extension 2;=x", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2;=x\r\nhi\r\n0\r\n\r\n", 400, "invalid_chunk_extension"),
    ("chunk extension 2;a=\"", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"\r\nhi\r\n0\r\n\r\n", 400, "invalid_chunk_extension"),
    ("chunk extension 2;a=b c", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2;a=b c\r\nhi\r\n0\r\n\r\n", 400, "invalid_chunk_extension"),
    ("empty Host", b"GET /healthz HTTP/1.1\r\nHost: \r\n\r\n", 400, "invalid_host"),
    ("Content-Length with Transfer-Encoding", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "content_length_with_transfer_encoding"),
    # RFC 3986: delimiters outside the URI grammar are refused raw (percent-encoded they are fine).
    *[(f"raw {c} in the target", b"GET /v1/pages/feed?q=" + c.encode() + b" HTTP/1.1\r\nHost: t\r\n\r\n", 400, "invalid_target")
      for c in ["<", ">", "\"", "{", "}", "|", "\\", "^", "`"]],
    # RFC 9112 section 3.2: a Host field with an invalid value.
    ("Host: a:b", b"GET /healthz HTTP/1.1\r\nHost: a:b\r\n\r\n", 400, "invalid_host"),
    ("Host: [::1", b"GET /healthz HTTP/1.1\r\nHost: [::1\r\n\r\n", 400, "invalid_host"),
    ("Host: t:65536", b"GET /healthz HTTP/1.1\r\nHost: t:65536\r\n\r\n", 400, "invalid_host"),
    # RFC 9110 section 6.5.1: framing, routing and authentication fields never come as trailers.
    *[(f"{name} in the trailers", b"POST /v1/pages/feed/next HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + name.encode() + b": x\r\n\r\n", 400, "forbidden_trailer")
      for name in ["Host", "Content-Length", "Transfer-Encoding", "Authorization"]],
]


def exchange(port: int, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(raw)
        received = b""
        while True:  # the server closes after a refusal; a missing close shows up as a timeout
            chunk = connection.recv(65536)
            if not chunk:
                return received
            received += chunk


def main() -> int:
    port = int(sys.argv[1])
    failures = 0
    for name, raw, status, code in PROBES:
        try:
            response = exchange(port, raw)
            head, _, body = response.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            got_status = int(lines[0].split(" ")[1])
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            problem = json.loads(body) if headers.get("content-type") == "application/problem+json" else {}
            ok = got_status == status and problem.get("code") == code and problem.get("status") == status
            detail = f"{got_status} {problem.get('code')}"
        except (OSError, ValueError, IndexError) as error:
            ok, detail = False, repr(error)
        print(f"{'ok ' if ok else 'FAIL'} {name}: {detail} (expected {status} {code})")
        failures += 0 if ok else 1
    # The server is unharmed.
    healthy = exchange(port, b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").startswith(b"HTTP/1.1 200")
    print(f"{'ok ' if healthy else 'FAIL'} GET /healthz afterwards")
    return 0 if failures == 0 and healthy else 1


if __name__ == "__main__":
    sys.exit(main())
