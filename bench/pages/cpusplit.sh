#!/usr/bin/env bash
# User vs system CPU time per request, flow-bff against nginx on the same bytes, at 64 connections: where the
# difference to nginx is (the kernel's share — read, sendmsg/writev, epoll — is nearly the same for both).
#
#   bench/pages/cpusplit.sh [page|next] [ROUNDS]        # defaults: page 4; 3-second rounds, servers alternating
#
# Both servers pinned to core 0, wrk to core 1, as in run.sh; nginx as tuned there (open_file_cache, buffered
# access log), one process. The release binary serves the bundled pages with config/production.json.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KIND=${1:-page}
ROUNDS=${2:-4}
for tool in nginx wrk curl python3 taskset; do command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 2; }; done
(cd "$ROOT" && swift build -c release --product flow-bff >/dev/null)
WORK=$(mktemp -d /tmp/bench-cpusplit.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$WORK"' EXIT
# shellcheck source=../lib/measure.sh
source "$ROOT/bench/lib/measure.sh"
BFF_PORT=$(free_port)
NGINX_PORT=$(free_port)
FLOW_BFF_CURSOR_KEY=bench-cursor-key-bench-cursor-key-0123456789 FLOW_BFF_SERVER_WORKERS=1 taskset -c 0 \
    "$ROOT/.build/release/flow-bff" serve --config "$ROOT/config/production.json" --pages "$ROOT/pages" \
    --port "$BFF_PORT" >/dev/null 2>&1 &
BFF_PID=$!
for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$BFF_PORT/healthz" && break; sleep 0.1; done
target=/v1/pages/feed
if [ "$KIND" = next ]; then
    postback=$(curl -fs "http://127.0.0.1:$BFF_PORT/v1/pages/feed" | python3 -c 'import json,sys; print(json.load(sys.stdin)["page"]["pagination"]["postback"])')
    target="/v1/pages/feed/next?postback=$postback"
fi
mkdir -p "$WORK/www" "$WORK/logs"
curl -fs -o "$WORK/www/body.json" "http://127.0.0.1:$BFF_PORT$target"
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log $WORK/logs/access.log combined buffer=64k flush=1s;
$NGINX_TUNED
    etag on;
    types { application/json json; }
    server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; location / { } }
}
CONF
taskset -c 0 nginx -p "$WORK" -c "$WORK/nginx.conf" &
for _ in $(seq 1 50); do [ -f "$WORK/nginx.pid" ] && break; sleep 0.1; done
NGINX_PID=$(cat "$WORK/nginx.pid")
a=$(curl -fs "http://127.0.0.1:$BFF_PORT$target" | sha256sum)
b=$(curl -fs "http://127.0.0.1:$NGINX_PORT/body.json" | sha256sum)
[ "$a" = "$b" ] || { echo "servers differ" >&2; exit 1; }
TICKS=$(getconf CLK_TCK)
echo "$KIND, 64 connections, $ROUNDS rounds of 3 s (µs per request)"
for round in $(seq "$ROUNDS"); do
    for server in flow-bff nginx; do
        if [ $server = flow-bff ]; then pid=$BFF_PID; url="http://127.0.0.1:$BFF_PORT$target"
        else pid=$NGINX_PID; url="http://127.0.0.1:$NGINX_PORT/body.json"; fi
        before=$(awk '{print $14, $15}' "/proc/$pid/stat")
        requests=$(taskset -c 1 wrk -t1 -c64 -d3s "$url" | awk '/requests in/ {print $1}')
        after=$(awk '{print $14, $15}' "/proc/$pid/stat")
        echo "$server $before $after $requests" | awk -v t="$TICKS" '{ u = ($4 - $2) / t * 1e6 / $6; s = ($5 - $3) / t * 1e6 / $6;
            printf "%s\t%.1f\t%.1f\t%.1f\n", $1, u, s, u + s }'
    done
done | sort | awk -F'\t' '{ print "  " $1 "\tuser " $2 "\tsystem " $3 "\ttotal " $4; u[$1] += $2; s[$1] += $3; n[$1]++ }
    END { for (k in u) printf "%s mean: user %.2f, system %.2f, total %.2f\n", k, u[k] / n[k], s[k] / n[k], (u[k] + s[k]) / n[k] }'
