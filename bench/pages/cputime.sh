#!/usr/bin/env bash
# CPU time per request of the page routes under wrk, for flow-bff binaries side by side (e.g. a change against its
# base), the binaries alternating every round so both see the same background load:
#
#   bench/pages/cputime.sh .build/release/flow-bff /tmp/base/.build/release/flow-bff
#   FIELDS=user D=3 R=6 C=1 bench/pages/cputime.sh BIN...
#
# Each binary serves the config and pages (CONFIG, PAGES: default this checkout's config/production.json and
# pages/) with one event-loop thread. Per request kind and round: 1 s of warm-up, then D seconds (default 3) of
# `wrk -t1 -cC` (C default 1); the figure is the server process's CPU time (user + system, or user only with
# FIELDS=user, from /proc/PID/stat at clock-tick resolution) over the measured run divided by the requests wrk
# completed. Prints the median and the minimum of R rounds (default 3) and every round. With PIN=1 the server runs
# on CPU 1 and wrk on CPU 0 (`taskset`), so that the two never share a core — at one connection the kernel's cost
# per request depends on that, and unpinned rounds of the same binary spread by up to 3×. Unpinned, on a shared
# machine expect rounds to spread by 10–30 %, and prefer bench/pages/instructions.sh for small differences.
set -euo pipefail
D=${D:-3}
R=${R:-3}
C=${C:-1}
SERVER_CPU=()
CLIENT_CPU=()
if [ "${PIN:-0}" = 1 ]; then
    SERVER_CPU=(taskset -c 1)
    CLIENT_CPU=(taskset -c 0)
fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CONFIG=${CONFIG:-$ROOT/config/production.json}
PAGES=${PAGES:-$ROOT/pages}
KEY=bench-cursor-key-bench-cursor-key-0123456789
TCK=$(getconf CLK_TCK)
for tool in wrk python3 curl; do command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 2; }; done
PIDS=()
trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT

cpu() { awk -v t="$TCK" -v f="${FIELDS:-both}" '{ print (f == "user" ? $14 : $14 + $15) / t }' "/proc/$1/stat"; }

printf '%-18s %-24s %10s %10s   %s\n' request binary "median µs" "min µs" rounds
for kind in "first page|/v1/pages/feed|" "first page, gzip|/v1/pages/feed|gzip" "next chunk|NEXT|" \
    "next chunk, gzip|NEXT|gzip"; do
    IFS='|' read -r label path gzip <<<"$kind"
    declare -A rounds=()
    for _ in $(seq 1 "$R"); do
        for bin in "$@"; do
            port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
            base="http://127.0.0.1:$port"
            FLOW_BFF_CURSOR_KEY=$KEY FLOW_BFF_SERVER_WORKERS=1 "${SERVER_CPU[@]}" "$bin" serve --config "$CONFIG" --pages "$PAGES" \
                --port "$port" >/dev/null 2>&1 &
            pid=$!
            PIDS+=("$pid")
            for _ in $(seq 1 100); do curl -fs -o /dev/null "$base/healthz" && break; sleep 0.1; done
            curl -fs -o /dev/null "$base/healthz" || { echo "$bin did not start" >&2; exit 1; }
            url="$base$path"
            if [ "$path" = NEXT ]; then
                postback=$(curl -s "$base/v1/pages/feed" |
                    python3 -c 'import json,sys; print(json.load(sys.stdin)["page"]["pagination"]["postback"])')
                url="$base/v1/pages/feed/next?postback=$postback"
            fi
            headers=()
            [ -n "$gzip" ] && headers=(-H "Accept-Encoding: gzip")
            "${CLIENT_CPU[@]}" wrk -t1 -c"$C" -d1s "${headers[@]}" "$url" >/dev/null
            before=$(cpu "$pid")
            requests=$("${CLIENT_CPU[@]}" wrk -t1 -c"$C" -d"${D}s" "${headers[@]}" "$url" | awk '/requests in/ { print $1 }')
            after=$(cpu "$pid")
            kill -TERM "$pid"
            wait "$pid" 2>/dev/null || true
            rounds[$bin]="${rounds[$bin]:-} $(python3 -c "print(round(($after - $before) * 1e6 / $requests, 2))")"
        done
    done
    for bin in "$@"; do
        sorted=$(echo ${rounds[$bin]} | tr ' ' '\n' | sort -n)
        median=$(echo "$sorted" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
        printf '%-18s %-24s %10s %10s  %s\n' "$label" "$(basename "$bin")" "$median" "$(echo "$sorted" | head -1)" \
            "${rounds[$bin]}"
    done
    unset rounds
done
