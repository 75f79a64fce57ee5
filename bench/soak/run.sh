#!/usr/bin/env bash
# Soak: a release flow-bff in production mode under wrk at 64 keep-alive connections for DURATION seconds, with a
# mix of first pages, next chunks and api actions (bench/soak/mix.lua: per ten requests five `GET
# /v1/pages/feed`, four `GET /v1/pages/feed/next?postback=…` and one `POST /v1/actions/cart.setQuantity` with a
# fresh `Idempotency-Key`). Reports requests, wrk's socket errors (connect, read, write, timeout), non-2xx
# answers, the server's 5xx count from /metrics and its RSS at start, every minute and at the end. Beside wrk, PACED
# (default 4) keep-alive connections send a request every 50 ms each (bench/soak/paced.py: the issue's reproduction
# of busy connections cut 30 s after accept, which wrk's back-to-back requests do not meet) and count the requests
# that met a connection the server closed without `Connection: close`.
#
#   bench/soak/run.sh                              # DURATION=600 CONNECTIONS=64
#   DURATION=60 bench/soak/run.sh                  # a short one
#   BIN=/path/to/flow-bff DURATION=60 bench/soak/run.sh   # another build (no release build first)
#
# flow-bff runs as in production (config/production.json: access log and metrics on, shared cursor key; the access
# log goes to /dev/null so ten minutes do not fill the disk) with one event-loop thread pinned to core 0; wrk runs
# one thread pinned to core 1 (as bench/lib/measure.sh). A busy connection must never be cut: the run fails (exit
# 1) on any socket error, any non-2xx answer, any 5xx counted by the server or any paced request cut.
set -euo pipefail

DURATION=${DURATION:-600}
CONNECTIONS=${CONNECTIONS:-64}
PACED=${PACED:-4}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KEY=bench-cursor-key-bench-cursor-key-0123456789

for tool in wrk taskset python3 curl; do
    command -v $tool >/dev/null || { echo "missing $tool; run: sudo apt-get install -y ${tool/taskset/util-linux}" >&2; exit 2; }
done
if [ -z "${BIN:-}" ]; then
    (cd "$ROOT" && swift build -c release --product flow-bff >/tmp/bench-soak-build.log 2>&1) ||
        { cat /tmp/bench-soak-build.log >&2; exit 1; }
    BIN="$ROOT/.build/release/flow-bff"
fi

# shellcheck source=../lib/measure.sh
source "$ROOT/bench/lib/measure.sh"
WORK=$(mktemp -d /tmp/bench-soak.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(free_port)
FLOW_BFF_CURSOR_KEY=$KEY FLOW_BFF_SERVER_HOST=127.0.0.1 FLOW_BFF_SERVER_WORKERS=1 FLOW_BFF_SERVER_SHUTDOWN_GRACE_SECONDS=0 \
    taskset -c 0 "$BIN" serve --config "$ROOT/config/production.json" --pages "$ROOT/pages" --port "$PORT" \
    >/dev/null 2>"$WORK/bff.err" &
BFF_PID=$!
PIDS+=("$BFF_PID")
base="http://127.0.0.1:$PORT"
for _ in $(seq 300); do curl -fs -o /dev/null "$base/readyz" && break; sleep 0.1; done
curl -fs -o /dev/null "$base/readyz" || { cat "$WORK/bff.err" >&2; exit 1; }

rss_mb() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$BFF_PID/status"; }
postback=$(curl -fs "$base/v1/pages/feed" |
    python3 -c 'import json,sys,urllib.parse; print(urllib.parse.quote(json.load(sys.stdin)["page"]["pagination"]["postback"]))')
export SOAK_NEXT="/v1/pages/feed/next?postback=$postback"
[[ $(curl -fs -o /dev/null -w '%{http_code}' "$base$SOAK_NEXT") == 200 ]] || { echo "cursor rejected" >&2; exit 1; }
rss_start=$(rss_mb)

# RSS once a minute while wrk runs.
(
    while sleep 60; do echo "$(rss_mb)" >>"$WORK/rss"; done
) &
PIDS+=($!)
# Connections the kernel accepted, machine-wide (Tcp PassiveOpens): wrk opens CONNECTIONS; a server that cuts
# busy connections makes wrk reconnect, which wrk itself does not always count as an error.
passive_opens() { awk '$1 == "Tcp:" && $2 ~ /^[0-9]+$/ {print $7}' /proc/net/snmp; }
opens_before=$(passive_opens)
started=$(date -u +%H:%M:%S)
python3 "$ROOT/bench/soak/paced.py" "$PORT" "$DURATION" "$PACED" >"$WORK/paced.out" 2>&1 &
paced=$!
taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 5s --latency -s "$ROOT/bench/soak/mix.lua" "$base" \
    >"$WORK/wrk.out" 2>&1 || { cat "$WORK/wrk.out" >&2; exit 1; }
wait "$paced" || { cat "$WORK/paced.out" >&2; exit 1; }
ended=$(date -u +%H:%M:%S)
opens=$(($(passive_opens) - opens_before))
rss_end=$(rss_mb)
hwm=$(awk '/^VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$BFF_PID/status")
metrics=$(curl -fs "$base/metrics")
server_5xx=$(echo "$metrics" | awk '/^flow_bff_requests_total\{/ && /status="5/ {sum += $NF} END {print sum + 0}')
server_total=$(echo "$metrics" | awk '/^flow_bff_requests_total\{/ {sum += $NF} END {print sum + 0}')

line=$(grep '^soak-result ' "$WORK/wrk.out") || { cat "$WORK/wrk.out" >&2; exit 1; }
field() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
requests=$(field requests); seconds=$(python3 -c "print($(field duration_us) / 1e6)")
connect=$(field connect); read=$(field read); write=$(field write); timeout=$(field timeout); status=$(field status)
socket_errors=$((connect + read + write + timeout))
echo "soak: $BIN, production config, $CONNECTIONS connections, ${DURATION} s ($started–$ended UTC)," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| requests | req/s | socket errors (connect / read / write / timeout) | non-2xx | server 5xx | p50 | p99 | max | RSS start → end (peak) | RSS per minute |"
echo "| $requests | $(python3 -c "print(round($requests / $seconds))") | $socket_errors ($connect / $read / $write / $timeout)" \
    "| $status | $server_5xx of $server_total | $(python3 -c "print(f'{$(field p50_us) / 1000:.2f} ms')")" \
    "| $(python3 -c "print(f'{$(field p99_us) / 1000:.2f} ms')") | $(python3 -c "print(f'{$(field max_us) / 1000:.1f} ms')")" \
    "| $rss_start → $rss_end MB ($hwm) | $(paste -sd' ' "$WORK/rss" 2>/dev/null || true) |"
paced=$(grep '^paced ' "$WORK/paced.out") || { cat "$WORK/paced.out" >&2; exit 1; }
cut=$(echo "$paced" | tr ' ' '\n' | sed -n 's/^cut=//p')
echo "$PACED paced connections (a request every 50 ms: /healthz, every fifth the feed): ${paced#paced }"
echo "TCP connections accepted during the run (machine-wide): $opens ($CONNECTIONS opened by wrk)"
echo "server answers by route and status: $(echo "$metrics" | sed -n 's/^flow_bff_requests_total{\(.*\)} \([0-9]*\)$/\1 \2/p' |
    tr -d '"' | sed 's/route=//; s/,status=/ /' | paste -sd';' | sed 's/;/; /g')"
[ "$socket_errors" -eq 0 ] && [ "$status" -eq 0 ] && [ "$server_5xx" -eq 0 ] && [ "$cut" -eq 0 ]
