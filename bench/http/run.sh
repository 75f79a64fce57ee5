#!/usr/bin/env bash
# HTTPCore vs nginx on loopback: the same 2 KB / 20 KB / 200 KB JSON bytes, plain and gzip, at 1 and 64
# connections. HTTPCore runs twice: on its epoll loop (`httpcore`) and on its portable Dispatch loop (`dispatch`).
# Each server is pinned to core 0, wrk to core 1; servers alternate and every row is repeated.
#
#   bench/http/run.sh                      # DURATION=5 ROUNDS=3
#   DURATION=3 ROUNDS=2 bench/http/run.sh  # quicker
#
# Prints requests/s, p50, p99 and the server's CPU time per request (user+system of the server process during
# the run / requests served), medians over rounds with min–max of CPU/request, and ratios to nginx.
# Fails (exit 1) if wrk reports socket errors or timeouts (a starved connection shows up as a wrk timeout) or
# non-2xx answers, or if the two servers do not serve the same bytes.
set -euo pipefail

DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-"1 64"}
SCRATCH=${SCRATCH:-.build-http}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# ---- prerequisites ---------------------------------------------------------------------------------------
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v taskset >/dev/null || missing+=(util-linux)
command -v python3 >/dev/null || missing+=(python3)
command -v curl >/dev/null || missing+=(curl)
command -v gzip >/dev/null || missing+=(gzip)
if ! command -v nginx >/dev/null || ! nginx -V 2>&1 | grep -q http_gzip_static_module; then missing+=(nginx); fi
if ((${#missing[@]})); then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "installing: ${missing[*]}" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >&2
    else
        echo "missing prerequisites; run: sudo apt-get install -y ${missing[*]}" >&2
        exit 2
    fi
fi
if [[ $(nproc) -lt 2 ]]; then echo "needs at least 2 cores (server on core 0, wrk on core 1)" >&2; exit 2; fi

# ---- build -------------------------------------------------------------------------------------------------
if ! (cd "$ROOT" && swift build -c release --product bench-http --scratch-path "$SCRATCH" >/tmp/bench-http-build.log 2>&1); then
    cat /tmp/bench-http-build.log >&2
    exit 1
fi
BENCH_BIN="$ROOT/$SCRATCH/release/bench-http"

# ---- files ---------------------------------------------------------------------------------------------------
WORK=$(mktemp -d /tmp/bench-http.XXXXXX)
mkdir -p "$WORK/www" "$WORK/nginx/logs"
chmod 755 "$WORK"  # nginx workers run as an unprivileged user when started as root
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
python3 "$ROOT/bench/lib/json-files.py" "$WORK/www" 2k 20k 200k
gzip -k -9 -n "$WORK"/www/*.json
chmod -R a+rX "$WORK/www"

# shellcheck source=../lib/measure.sh
source "$ROOT/bench/lib/measure.sh"

# ---- servers -------------------------------------------------------------------------------------------------
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
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WORK/www;
        location / { }
    }
}
CONF
taskset -c 0 nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
NGINX_MASTER=$!
PIDS+=("$NGINX_MASTER")

taskset -c 0 "$BENCH_BIN" --dir "$WORK/www" --threads 1 --port 0 >"$WORK/httpcore.out" 2>"$WORK/httpcore.err" &
HTTPCORE_PID=$!
PIDS+=("$HTTPCORE_PID")
taskset -c 0 "$BENCH_BIN" --dir "$WORK/www" --threads 1 --port 0 --event-loop dispatch >"$WORK/dispatch.out" 2>"$WORK/dispatch.err" &
DISPATCH_PID=$!
PIDS+=("$DISPATCH_PID")

for _ in $(seq 100); do
    [[ -s "$WORK/httpcore.out" && -s "$WORK/dispatch.out" ]] && curl -s -o /dev/null "http://127.0.0.1:$NGINX_PORT/2k.json" && break
    sleep 0.1
done
HTTPCORE_PORT=$(awk '/^listening/ {print $2}' "$WORK/httpcore.out")
[[ -n "$HTTPCORE_PORT" ]] || { echo "bench-http did not start: $(cat "$WORK/httpcore.err")" >&2; exit 1; }
DISPATCH_PORT=$(awk '/^listening/ {print $2}' "$WORK/dispatch.out")
[[ -n "$DISPATCH_PORT" ]] || { echo "bench-http --event-loop dispatch did not start: $(cat "$WORK/dispatch.err")" >&2; exit 1; }
NGINX_WORKER=$(pgrep -P "$NGINX_MASTER" | head -1)
[[ -n "$NGINX_WORKER" ]] || { echo "nginx did not start" >&2; exit 1; }

# ---- same bytes? ---------------------------------------------------------------------------------------------
for file in 2k 20k 200k; do
    for enc in identity gzip; do
        a=$(curl -s -H "Accept-Encoding: $enc" "http://127.0.0.1:$NGINX_PORT/$file.json" | sha256sum)
        b=$(curl -s -H "Accept-Encoding: $enc" "http://127.0.0.1:$HTTPCORE_PORT/$file.json" | sha256sum)
        c=$(curl -s -H "Accept-Encoding: $enc" "http://127.0.0.1:$DISPATCH_PORT/$file.json" | sha256sum)
        [[ "$a" == "$b" && "$a" == "$c" ]] || { echo "servers differ on $file.json ($enc)" >&2; exit 1; }
    done
done
echo "same bytes: ok (nginx :$NGINX_PORT, HTTPCore epoll :$HTTPCORE_PORT, dispatch :$DISPATCH_PORT)" >&2

RESULTS="$WORK/results.tsv"
: >"$RESULTS"


echo "running: ${ROUNDS} rounds x {1,64} connections x 3 files x {plain,gzip} x 3 servers, ${DURATION}s each" >&2
for round in $(seq "$ROUNDS"); do
    for conns in $CONNECTIONS; do
        for file in 2k 20k 200k; do
            for enc in plain gzip; do
                if ((round % 2)); then order="nginx httpcore dispatch"; else order="dispatch httpcore nginx"; fi
                for server in $order; do
                    if [[ $server == nginx ]]; then
                        measure "$RESULTS" nginx "$file $enc" "$NGINX_WORKER" "http://127.0.0.1:$NGINX_PORT/$file.json" "$conns" "$enc" "$round"
                    elif [[ $server == httpcore ]]; then
                        measure "$RESULTS" httpcore "$file $enc" "$HTTPCORE_PID" "http://127.0.0.1:$HTTPCORE_PORT/$file.json" "$conns" "$enc" "$round"
                    else
                        measure "$RESULTS" dispatch "$file $enc" "$DISPATCH_PID" "http://127.0.0.1:$DISPATCH_PORT/$file.json" "$conns" "$enc" "$round"
                    fi
                done
            done
        done
    done
    echo "round $round done" >&2
done

kill -TERM "$HTTPCORE_PID" "$DISPATCH_PID"
wait "$HTTPCORE_PID" && echo "bench-http exited 0 after SIGTERM: $(cat "$WORK/httpcore.err")" >&2
wait "$DISPATCH_PID" && echo "bench-http --event-loop dispatch exited 0 after SIGTERM: $(cat "$WORK/dispatch.err")" >&2

echo
python3 "$ROOT/bench/lib/wrkstat.py" table "$RESULTS" nginx
