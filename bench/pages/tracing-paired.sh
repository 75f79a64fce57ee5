#!/usr/bin/env bash
# Tracing cost on the page routes (issue 35), measured side by side in the same seconds: two flow-bff processes of
# one build — tracing off, and tracing on at 100 % sampling (`OTEL_TRACES_SAMPLER=always_on`) exporting OTLP/HTTP
# protobuf to bench/pages/otlp-sink.py — both pinned to CPU 1, each loaded by its own `wrk -t1 -cC` on CPU 0 at the
# same time. Each round's figure is each process's CPU time (user + system, all its threads: event loop, HTTP
# client thread) over the requests its wrk completed, and the round's ratio is on ÷ off.
#
#   bench/pages/tracing-paired.sh .build/release/flow-bff
#   R=9 D=5 C=32 bench/pages/tracing-paired.sh BIN
#
# Why side by side: on this 2-core VM, rounds of one binary run one after another spread by 20–50 % (the kernel's
# share of a request — two thirds of it — moves with whatever else the host runs), which buries a 15 % bar; two
# processes sharing one CPU through the same seconds see the same machine, and their ratio moves by ±2 %. The
# CPU is time-shared, so each process answers about half the requests it would alone: the per-request figures
# are a little higher than bench/pages/tracing.sh's, the ratio is the point. bench/pages/tracing.sh is the
# one-after-another measurement.
#
# D seconds per round (default 5), R rounds (default 6), C connections per wrk (default 32, 64 in all). ON_ENV:
# more environment for the tracing-on process, e.g. `ON_ENV="OTEL_BSP_MAX_EXPORT_BATCH_SIZE=2048
# OTEL_BSP_MAX_QUEUE_SIZE=8192"`, or `ON_ENV=OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9` (nothing listens: every
# span is started, ended and dropped, none exported). SINK_PYTHON=python3: a sink that counts bytes only (by
# default .venv's python, when there, also decodes every export and counts its spans — on wrk's CPU).
# THREADS=loop: count the event loop's thread only (`http-loop-*`), to tell the request path's share from the
# export's (the HTTP client's thread).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
D=${D:-5}
R=${R:-6}
C=${C:-32}
CONFIG=${CONFIG:-$ROOT/config/production.json}
PAGES=${PAGES:-$ROOT/pages}
KEY=bench-cursor-key-bench-cursor-key-0123456789
for tool in wrk python3 curl taskset; do command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 2; }; done
# shellcheck source=../lib/measure.sh
source "$ROOT/bench/lib/measure.sh"
if [ "${THREADS:-all}" = loop ]; then
    cpu_ticks() { # the event-loop threads' user + system ticks
        local sum=0 task
        for task in /proc/"$1"/task/*; do
            case $(cat "$task/comm") in http-loop-*) sum=$((sum + $(awk '{print $14 + $15}' "$task/stat"))) ;; esac
        done
        echo "$sum"
    }
fi
WORK=$(mktemp -d)
PYTHON=${SINK_PYTHON:-python3}
[ -z "${SINK_PYTHON:-}" ] && [ -x "$ROOT/.venv/bin/python" ] && PYTHON="$ROOT/.venv/bin/python"
PIDS=()
trap 'for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true
    cat "$WORK/sink.log" 2>/dev/null; rm -rf "$WORK"' EXIT
taskset -c 0 "$PYTHON" "$ROOT/bench/pages/otlp-sink.py" >"$WORK/port" 2>"$WORK/sink.log" &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
sink_port=$(head -1 "$WORK/port")
[ -n "$sink_port" ] || { echo "the sink did not start" >&2; exit 1; }

off_port=$(free_port)
on_port=$(free_port)
FLOW_BFF_CURSOR_KEY=$KEY FLOW_BFF_SERVER_WORKERS=1 taskset -c 1 "$BIN" serve --config "$CONFIG" --pages "$PAGES" \
    --port "$off_port" >/dev/null 2>&1 &
off_pid=$!
PIDS+=($off_pid)
# shellcheck disable=SC2086 # ON_ENV is a list of assignments
env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$sink_port OTEL_TRACES_SAMPLER=always_on ${ON_ENV:-} \
    FLOW_BFF_CURSOR_KEY=$KEY FLOW_BFF_SERVER_WORKERS=1 taskset -c 1 "$BIN" serve --config "$CONFIG" \
    --pages "$PAGES" --port "$on_port" >/dev/null 2>&1 &
on_pid=$!
PIDS+=($on_pid)
for port in $off_port $on_port; do
    for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
    curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" || { echo "flow-bff did not start" >&2; exit 1; }
done

# target PORT PATH: PATH, or the feed's next chunk from that server (its postback) for NEXT.
target() {
    if [ "$2" = NEXT ]; then
        echo "/v1/pages/feed/next?postback=$(curl -fs "http://127.0.0.1:$1/v1/pages/feed" |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["page"]["pagination"]["postback"])')"
    else
        echo "$2"
    fi
}

printf '%-18s %s\n' request "rounds: off µs/req, on µs/req, on ÷ off"
summary=()
for kind in "first page|/v1/pages/feed|" "first page, gzip|/v1/pages/feed|gzip" "next chunk|NEXT|" \
    "next chunk, gzip|NEXT|gzip"; do
    IFS='|' read -r label path gzip <<<"$kind"
    off_url="http://127.0.0.1:$off_port$(target "$off_port" "$path")"
    on_url="http://127.0.0.1:$on_port$(target "$on_port" "$path")"
    headers=()
    [ -n "$gzip" ] && headers=(-H "Accept-Encoding: gzip")
    taskset -c 0 wrk -t1 -c"$C" -d1s "${headers[@]}" "$off_url" >/dev/null &
    warm_off=$!
    taskset -c 0 wrk -t1 -c"$C" -d1s "${headers[@]}" "$on_url" >/dev/null &
    wait "$warm_off" $!
    ratios=()
    printf '%-18s' "$label"
    for _ in $(seq 1 "$R"); do
        off_before=$(cpu_ticks "$off_pid")
        on_before=$(cpu_ticks "$on_pid")
        taskset -c 0 wrk -t1 -c"$C" -d"${D}s" "${headers[@]}" "$off_url" >"$WORK/off.txt" &
        off_wrk=$!
        taskset -c 0 wrk -t1 -c"$C" -d"${D}s" "${headers[@]}" "$on_url" >"$WORK/on.txt" &
        on_wrk=$!
        wait "$off_wrk" "$on_wrk"
        off_after=$(cpu_ticks "$off_pid")
        on_after=$(cpu_ticks "$on_pid")
        for side in off on; do
            if ! grep -q "requests in" "$WORK/$side.txt" || grep -q "Non-2xx\|Socket errors" "$WORK/$side.txt"; then
                echo "wrk against the tracing-$side server failed:" >&2
                cat "$WORK/$side.txt" >&2
                exit 1
            fi
        done
        round=$(python3 -c "
off = ($off_after - $off_before) * 1e6 / $CLK_TCK / $(awk '/requests in/ { print $1 }' "$WORK/off.txt")
on = ($on_after - $on_before) * 1e6 / $CLK_TCK / $(awk '/requests in/ { print $1 }' "$WORK/on.txt")
print(f'{off:.2f} {on:.2f} {on / off:.3f}')")
        read -r off on ratio <<<"$round"
        printf '  %s/%s %s' "$off" "$on" "$ratio"
        ratios+=("$ratio")
    done
    echo
    summary+=("$(printf '%-18s %s' "$label" "$(printf '%s\n' "${ratios[@]}" | sort -n | awk '
        { a[NR] = $1 } END { printf "%.3f (%.3f–%.3f)", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[1], a[NR] }')")")
done
echo
echo "tracing on ÷ off, median of the rounds (min–max); target ≤ 1.15"
printf '%s\n' "${summary[@]}"
