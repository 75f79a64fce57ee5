#!/usr/bin/env bash
# Instructions per request of the page routes, counted by valgrind's callgrind: repeatable whatever else the
# machine is doing (a CPU-time benchmark is not, on a shared 2-core machine). Compares flow-bff binaries, e.g. a
# change against its base, side by side:
#
#   bench/pages/instructions.sh .build/release/flow-bff /tmp/base/.build/release/flow-bff
#   N=2000 bench/pages/instructions.sh BIN...
#   CONFIG=/tmp/base/config/production.json PAGES=/tmp/base/pages bench/pages/instructions.sh BIN...
#
# CONFIG and PAGES (default: this checkout's config/production.json and pages/) let an older binary, which may
# reject newer configuration keys, be measured on the same files as the new one.
#
# Each binary serves the bundled pages with config/production.json (access log and metrics on), one event-loop
# thread. For each request kind it runs the server twice under callgrind, once answering 100 requests and once
# 100 + N, over one keep-alive connection (curl); the difference of the two totals divided by N is the cost of one
# request, start-up and shutdown cancelled out.
set -euo pipefail
N=${N:-1000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/bench-instructions.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
KEY=bench-cursor-key-bench-cursor-key-0123456789
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
CONFIG=${CONFIG:-$ROOT/config/production.json}
PAGES=${PAGES:-$ROOT/pages}

# valgrind 3.19 cannot read the DWARF of a Swift release binary; callgrind's totals need no debug info.
stripped() { local copy; copy="$WORK/$(echo "$1" | tr '/' '_')"; [ -f "$copy" ] || strip -o "$copy" "$1"; echo "$copy"; }

# total_instructions BIN COUNT URL [HEADER]
total_instructions() {
    local bin=$1 count=$2 url=$3 header=${4:-}
    local out="$WORK/callgrind.out"
    rm -f "$out"
    FLOW_BFF_CURSOR_KEY=$KEY FLOW_BFF_SERVER_WORKERS=1 FLOW_BFF_LOGGING_ACCESS_LOG=true \
        valgrind --tool=callgrind --callgrind-out-file="$out" "$(stripped "$bin")" serve --config "$CONFIG" \
        --pages "$PAGES" --port "$PORT" >"$WORK/server.log" 2>"$WORK/valgrind.log" &
    local pid=$!
    for _ in $(seq 1 300); do curl -fs -o /dev/null "$BASE/healthz" && break; sleep 0.2; done
    curl -fs -o /dev/null "$BASE/healthz" || { echo "$bin did not start:" >&2; tail -5 "$WORK/valgrind.log" >&2; exit 1; }
    : >"$WORK/urls"
    for _ in $(seq 1 "$count"); do echo "url = \"$url\"" >>"$WORK/urls"; echo "output = /dev/null" >>"$WORK/urls"; done
    if [ -n "$header" ]; then curl -s -H "$header" -K "$WORK/urls"; else curl -s -K "$WORK/urls"; fi
    kill -TERM "$pid"
    wait "$pid" || true
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

printf '%-34s' "request"
for bin in "$@"; do printf '%24s' "$(basename "$bin")"; done
echo
for kind in "first page|/v1/pages/feed|" "first page, gzip|/v1/pages/feed|Accept-Encoding: gzip" \
    "next chunk|NEXT|" "next chunk, gzip|NEXT|Accept-Encoding: gzip"; do
    IFS='|' read -r label path header <<<"$kind"
    printf '%-34s' "$label"
    for bin in "$@"; do
        url="$BASE$path"
        if [ "$path" = NEXT ]; then
            # A chunk cursor as this binary issues it (same key, same pages → same postback).
            FLOW_BFF_CURSOR_KEY=$KEY FLOW_BFF_SERVER_WORKERS=1 "$bin" serve --config "$CONFIG" \
                --pages "$PAGES" --port "$PORT" >/dev/null 2>&1 &
            spid=$!
            for _ in $(seq 1 100); do curl -fs -o /dev/null "$BASE/healthz" && break; sleep 0.1; done
            postback=$(curl -s "$BASE/v1/pages/feed" | python3 -c 'import json,sys; print(json.load(sys.stdin)["page"]["pagination"]["postback"])')
            kill -TERM "$spid"; wait "$spid" || true
            url="$BASE/v1/pages/feed/next?postback=$postback"
        fi
        low=$(total_instructions "$bin" 100 "$url" "$header")
        high=$(total_instructions "$bin" $((100 + N)) "$url" "$header")
        printf '%24s' "$(( (high - low) / N )) instr/req"
    done
    echo
done
