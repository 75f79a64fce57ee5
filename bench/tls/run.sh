#!/usr/bin/env bash
# HTTPCore over TLS vs nginx over TLS on loopback (issue 34): the same JSON bytes, the same EC P-256 certificate,
# TLS 1.2/1.3 with the same cipher list, session cache and tickets on in both. HTTPCore is bench-http --tls-cert
# (epoll loop, one thread); nginx one worker. Each server is pinned to core 0, the clients to core 1; servers
# alternate and every row is repeated.
#
#   bench/tls/run.sh                      # DURATION=5 ROUNDS=3
#   DURATION=3 ROUNDS=2 bench/tls/run.sh  # quicker
#
# Rows:
#   keep-alive     wrk over HTTPS, 1 and 64 connections: requests/s and server CPU per request.
#   handshake      wrk with `Connection: close`, 64 connections: every request a new connection and a full
#                  handshake (wrk does not resume sessions): handshakes/s and server CPU per handshake.
#   resumed        `openssl s_time -reuse`: one connection at a time, each resuming the session of the first
#                  (TLS 1.3 tickets / TLS 1.2 session ids) and fetching the page: connections/s.
#   new (s_time)   `openssl s_time -new`: one connection at a time, full handshakes: connections/s.
# Ratios are to nginx. Fails (exit 1) if wrk reports socket errors, timeouts or non-2xx answers, if a resumed
# run resumed nothing, or if the two servers do not serve the same bytes.
set -euo pipefail

DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
SCRATCH=${SCRATCH:-.build-http}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v openssl >/dev/null || missing+=(openssl)
command -v taskset >/dev/null || missing+=(util-linux)
command -v curl >/dev/null || missing+=(curl)
if ! command -v nginx >/dev/null || ! nginx -V 2>&1 | grep -q http_ssl_module; then missing+=(nginx); fi
if ((${#missing[@]})); then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "installing: ${missing[*]}" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >&2
    else
        echo "missing prerequisites; run: sudo apt-get install -y ${missing[*]}" >&2
        exit 2
    fi
fi
if [[ $(nproc) -lt 2 ]]; then echo "needs at least 2 cores (server on core 0, clients on core 1)" >&2; exit 2; fi

if ! (cd "$ROOT" && swift build -c release --product bench-http --scratch-path "$SCRATCH" >/tmp/bench-tls-build.log 2>&1); then
    cat /tmp/bench-tls-build.log >&2
    exit 1
fi
BENCH_BIN="$ROOT/$SCRATCH/release/bench-http"

WORK=$(mktemp -d /tmp/bench-tls.XXXXXX)
mkdir -p "$WORK/www" "$WORK/nginx/logs"
chmod 755 "$WORK"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
python3 "$ROOT/bench/lib/json-files.py" "$WORK/www" 2k 20k
gzip -k -9 -n "$WORK"/www/*.json
chmod -R a+rX "$WORK/www"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
chmod a+r "$WORK/key.pem"

# shellcheck source=../lib/measure.sh
source "$ROOT/bench/lib/measure.sh"

NGINX_PORT=$(free_port)
cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
$NGINX_TUNED
    keepalive_timeout 65;
    gzip off;
    gzip_static on;
    etag on;
    types { application/json json; }
    default_type application/octet-stream;
    ssl_certificate $WORK/cert.pem;
    ssl_certificate_key $WORK/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_ciphers ECDHE+AESGCM:ECDHE+CHACHA20;
    ssl_prefer_server_ciphers on;
    ssl_session_cache shared:SSL:10m;
    ssl_session_tickets on;
    server {
        listen 127.0.0.1:$NGINX_PORT ssl;
        root $WORK/www;
        location / { }
    }
}
CONF
taskset -c 0 nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
NGINX_MASTER=$!
PIDS+=("$NGINX_MASTER")
taskset -c 0 "$BENCH_BIN" --dir "$WORK/www" --threads 1 --port 0 --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" \
    >"$WORK/httpcore.out" 2>"$WORK/httpcore.err" &
HTTPCORE_PID=$!
PIDS+=("$HTTPCORE_PID")
for _ in $(seq 100); do
    [[ -s "$WORK/httpcore.out" ]] && curl -ks -o /dev/null "https://127.0.0.1:$NGINX_PORT/2k.json" && break
    sleep 0.1
done
HTTPCORE_PORT=$(awk '/^listening/ {print $2}' "$WORK/httpcore.out")
[[ -n "$HTTPCORE_PORT" ]] || { echo "bench-http did not start: $(cat "$WORK/httpcore.err")" >&2; exit 1; }
NGINX_WORKER=$(pgrep -P "$NGINX_MASTER" | head -1)
[[ -n "$NGINX_WORKER" ]] || { echo "nginx did not start" >&2; exit 1; }

for file in 2k 20k; do
    for enc in identity gzip; do
        a=$(curl -s --cacert "$WORK/cert.pem" -H "Accept-Encoding: $enc" "https://127.0.0.1:$NGINX_PORT/$file.json" | sha256sum)
        b=$(curl -s --cacert "$WORK/cert.pem" -H "Accept-Encoding: $enc" "https://127.0.0.1:$HTTPCORE_PORT/$file.json" | sha256sum)
        [[ "$a" == "$b" ]] || { echo "servers differ on $file.json ($enc)" >&2; exit 1; }
    done
done
for port in "$NGINX_PORT" "$HTTPCORE_PORT"; do
    curl -s --cacert "$WORK/cert.pem" -o /dev/null -w '%{http_version} ' "https://127.0.0.1:$port/2k.json" >&2
done
echo "same bytes over HTTPS: ok (nginx :$NGINX_PORT, HTTPCore :$HTTPCORE_PORT)" >&2

RESULTS="$WORK/results.tsv"
: >"$RESULTS"

# s_time OUTPUT SERVER TAG PID PORT MODE ROUND: one `openssl s_time` run (client on core 1), a row like wrkstat's
# (connections/s as req/s, over the wall-clock time of the run: s_time's own "real seconds" are whole seconds; no
# latency distribution). s_time prints `*` per full handshake and `r` per resumed one: a reuse run in which fewer
# than 90 % resumed fails.
s_time() {
    local output=$1 server=$2 tag=$3 pid=$4 port=$5 mode=$6 round=$7 before after start end out
    before=$(cpu_ticks "$pid")
    start=$(date +%s%N)
    out=$(taskset -c 1 openssl s_time -connect "127.0.0.1:$port" "-$mode" -time "$DURATION" -www /2k.json 2>&1)
    end=$(date +%s%N)
    after=$(cpu_ticks "$pid")
    python3 - "$server" "$tag" "$round" "$mode" "$start" "$end" "$((after - before))" "$CLK_TCK" "$out" >>"$output" <<'PY'
import re, sys
server, tag, rnd, mode, start, end, ticks, hz, out = sys.argv[1:]
match = re.search(r"(\d+) connections in [\d.]+ real seconds", out)
if not match:
    sys.exit("s_time printed no result: %s" % out[-500:])
count = int(match.group(1))
# The progress marks of the timed part (after "Now timing with session id reuse." when reusing).
marks = out.split("session id reuse.")[-1] if mode == "reuse" else out
resumed, full = marks.count("r"), marks.count("*")
if mode == "reuse" and resumed < 0.9 * count:
    sys.exit("%s: only %d of %d connections resumed their session" % (server, resumed, count))
seconds = (int(end) - int(start)) / 1e9
print("\t".join(map(str, [server, tag, 1, rnd, count / seconds, "nan", "nan",
                          int(ticks) / int(hz) * 1e6 / max(count, 1), 0, 0, count])))
PY
}

echo "running: ${ROUNDS} rounds x {keep-alive 1/64, handshake 64, s_time new/reuse} x 2 servers, ${DURATION}s each" >&2
for round in $(seq "$ROUNDS"); do
    if ((round % 2)); then order="nginx httpcore"; else order="httpcore nginx"; fi
    for server in $order; do
        if [[ $server == nginx ]]; then pid=$NGINX_WORKER port=$NGINX_PORT; else pid=$HTTPCORE_PID port=$HTTPCORE_PORT; fi
        url="https://127.0.0.1:$port"
        measure "$RESULTS" "$server" "keep-alive 2k" "$pid" "$url/2k.json" 1 plain "$round"
        measure "$RESULTS" "$server" "keep-alive 2k" "$pid" "$url/2k.json" 64 plain "$round"
        measure "$RESULTS" "$server" "keep-alive 20k gzip" "$pid" "$url/20k.json" 64 gzip "$round"
        WRK_SCRIPT="$ROOT/bench/tls/close.lua" measure "$RESULTS" "$server" "handshake per request (full)" "$pid" \
            "$url/2k.json" 64 plain "$round"
        s_time "$RESULTS" "$server" "s_time new (full handshake)" "$pid" "$port" new "$round"
        s_time "$RESULTS" "$server" "s_time reuse (resumed)" "$pid" "$port" reuse "$round"
    done
    echo "round $round done" >&2
done

echo
python3 "$ROOT/bench/lib/wrkstat.py" table "$RESULTS" nginx
