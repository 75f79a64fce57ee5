#!/usr/bin/env bash
# Many idle keep-alive connections: flow-bff's memory and its answer time for a new request while they are open.
#
#   bench/connections/run.sh                  # CONNECTIONS=10000 PROBES=200
#   CONNECTIONS=2000 bench/connections/run.sh
#
# Serves the bundled pages as in production (config/production.json: access log and metrics on, shared cursor key)
# from the release binary, one event-loop thread, on 127.0.0.1. A python client opens CONNECTIONS connections, sends
# `GET /healthz` on each (so each is a keep-alive connection that has served a request) and keeps them all open and
# idle; then, with all of them open, it times PROBES requests for the feed's first page, each on a new connection
# (connect + request + full response). Reports the server's RSS before, with the idle connections open, and after
# the probes, and the probes' p50 / p99 / max. Targets (issue 19): RSS ≤ 256 MB with 10,000 idle connections, and
# a new request answered within 10 ms (p99). Exit status 1 when a target is missed or a connection fails.
# Before that, the RSS under load (issue 19: ≤ 64 MB with the bundled pages): wrk with 64 connections on the feed's
# first page and a next chunk, plain and gzip, LOAD_SECONDS (default 5) each; the server's peak RSS (VmHWM) after it.
# FLOW_BFF_SERVER_EVENT_LOOP=dispatch measures the portable event loop instead of epoll.
set -euo pipefail

CONNECTIONS=${CONNECTIONS:-10000}
LOAD_SECONDS=${LOAD_SECONDS:-5}
PROBES=${PROBES:-200}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KEY=bench-cursor-key-bench-cursor-key-0123456789

for tool in python3 curl wrk; do command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 2; }; done
need=$((CONNECTIONS + CONNECTIONS / 8 + 100))  # the Dispatch loop may duplicate up to a sixteenth of the limit
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$need" ]; then
    echo "needs $need open files per process; the hard limit is $(ulimit -Hn)" >&2
    exit 2
fi
ulimit -n "$need"

(cd "$ROOT" && swift build -c release --product flow-bff >/tmp/bench-connections-build.log 2>&1) ||
    { cat /tmp/bench-connections-build.log >&2; exit 1; }
BIN="$ROOT/.build/release/flow-bff"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
WORK=$(mktemp -d /tmp/bench-connections.XXXXXX)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
FLOW_BFF_CURSOR_KEY=$KEY FLOW_BFF_SERVER_HOST=127.0.0.1 FLOW_BFF_SERVER_WORKERS=1 FLOW_BFF_SERVER_SHUTDOWN_GRACE_SECONDS=0 \
    FLOW_BFF_HTTP_MAXIMUM_CONNECTIONS=$((CONNECTIONS + 1000)) FLOW_BFF_HTTP_IDLE_TIMEOUT_SECONDS=600 \
    "$BIN" serve --config "$ROOT/config/production.json" --pages "$ROOT/pages" --port "$PORT" \
    >"$WORK/access.log" 2>"$WORK/server.err" &
server=$!
for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz" && break; sleep 0.1; done
curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz" || { cat "$WORK/server.err" >&2; exit 1; }

status=0
base="http://127.0.0.1:$PORT"
postback=$(curl -fs "$base/v1/pages/feed" | python3 -c 'import json,sys; print(json.load(sys.stdin)["page"]["pagination"]["postback"])')
for target in /v1/pages/feed "/v1/pages/feed/next?postback=$postback"; do
    for header in "Accept-Encoding: identity" "Accept-Encoding: gzip"; do
        wrk -t1 -c64 -d"${LOAD_SECONDS}s" -H "$header" "$base$target" >"$WORK/wrk.txt"
        grep -q "Non-2xx" "$WORK/wrk.txt" && { echo "non-2xx answers under load:" >&2; cat "$WORK/wrk.txt" >&2; status=1; }
    done
done
peak=$(awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$server/status")
echo "server RSS under 64-connection load (first page and next chunk, plain and gzip, ${LOAD_SECONDS}s each): peak $peak MB (target ≤ 64 MB)"
awk -v peak="$peak" 'BEGIN { exit !(peak > 64) }' && status=1

python3 - "$PORT" "$server" "$CONNECTIONS" "$PROBES" <<'PY' || status=$?
import resource, selectors, socket, statistics, sys, time

port, pid, count, probes = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 200), hard))

def rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")

def request(path):
    """One request on a new connection; the seconds until the whole response was read."""
    start = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    if not data.startswith(b"HTTP/1.1 200"):
        raise SystemExit(f"probe answered {data[:40]!r}")
    return time.perf_counter() - start

before = rss_mb()
for _ in range(20):
    request("/v1/pages/feed")  # warm-up: the representation is prepared
warm = rss_mb()

# Open the idle connections, 500 at a time, each serving one request and staying open.
opened, sockets, started = 0, [], time.perf_counter()
selector = selectors.DefaultSelector()
while opened < count:
    batch = []
    for _ in range(min(500, count - opened)):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n")
        batch.append(s)
    for s in batch:
        response = s.recv(4096)
        if not response.startswith(b"HTTP/1.1 200"):
            raise SystemExit(f"connection {opened}: {response[:40]!r}")
        opened += 1
    sockets += batch
open_seconds = time.perf_counter() - started
time.sleep(1)
idle = rss_mb()

latencies = sorted(request("/v1/pages/feed") for _ in range(probes))
after = rss_mb()
# Every idle connection must still be open (not closed by the server while the probes ran).
closed = 0
for s in sockets:
    s.setblocking(False)
    try:
        if s.recv(1) == b"":
            closed += 1
    except BlockingIOError:
        pass
p50 = statistics.median(latencies) * 1000
p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
print(f"server RSS: {before:.1f} MB after the load, {warm:.1f} MB warm, {idle:.1f} MB with {count} idle keep-alive "
      f"connections (opened in {open_seconds:.1f} s), {after:.1f} MB after the probes")
print(f"new-connection requests for the feed with {count} idle connections open: {probes} probes, "
      f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {latencies[-1] * 1000:.2f} ms")
print(f"idle connections closed by the server meanwhile: {closed}")
ok = idle <= 256 and after <= 256 and p99 <= 10 and closed == 0
print(f"targets (RSS ≤ 256 MB, p99 ≤ 10 ms, none closed): {'met' if ok else 'MISSED'}")
for s in sockets:
    s.close()
sys.exit(0 if ok else 1)
PY
kill -TERM "$server"
wait "$server" || { cat "$WORK/server.err" >&2; echo "flow-bff did not exit 0 after SIGTERM" >&2; exit 1; }
server=""
exit $status
