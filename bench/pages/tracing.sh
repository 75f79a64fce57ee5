#!/usr/bin/env bash
# Tracing cost on the page routes (issue 35): bench/pages/cputime.sh over the same build with tracing off and on —
# 100 % sampling (`OTEL_TRACES_SAMPLER=always_on`), OTLP/HTTP protobuf to bench/pages/otlp-sink.py on loopback,
# which accepts and discards every export — and, when given, a base build without tracing compiled in:
#
#   bench/pages/tracing.sh .build/release/flow-bff [/tmp/base/.build/release/flow-bff]
#   D=3 R=5 C=64 bench/pages/tracing.sh BIN BASE
#
# The figures are CPU time of the whole flow-bff process per request (its event loop, which encodes the spans, and
# the HTTP client's thread, which posts them), so the sink's own CPU is not counted. The sink prints the
# requests, bytes and spans it received when it stops (spans only when .venv has opentelemetry-proto, as
# scripts/tracing-test installs it). D, R, C, FIELDS, CONFIG, PAGES, PIN: as in cputime.sh (with PIN=1 the sink
# shares wrk's CPU, not the server's).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BIN [BASE_BIN]" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
WORK=$(mktemp -d)
PYTHON=python3
[ -x "$ROOT/.venv/bin/python" ] && PYTHON="$ROOT/.venv/bin/python"
SINK_CPU=()
[ "${PIN:-0}" = 1 ] && SINK_CPU=(taskset -c 0)
"${SINK_CPU[@]}" "$PYTHON" "$ROOT/bench/pages/otlp-sink.py" >"$WORK/port" 2>"$WORK/sink.log" &
sink=$!
trap 'kill -TERM $sink 2>/dev/null || true; wait $sink 2>/dev/null || true; cat "$WORK/sink.log"; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
port=$(head -1 "$WORK/port")
[ -n "$port" ] || { echo "the sink did not start" >&2; exit 1; }

# Wrappers named for the table; `exec` keeps the pid cputime.sh measures the server's.
printf '#!/bin/sh\nexec %q "$@"\n' "$BIN" >"$WORK/tracing-off"
printf '#!/bin/sh\nOTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:%s OTEL_TRACES_SAMPLER=always_on exec %q "$@"\n' \
    "$port" "$BIN" >"$WORK/tracing-on"
bins=("$WORK/tracing-off" "$WORK/tracing-on")
if [ $# -ge 2 ]; then
    printf '#!/bin/sh\nexec %q "$@"\n' "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")" >"$WORK/base"
    bins=("$WORK/base" "${bins[@]}")
fi
chmod +x "${bins[@]}"
"$ROOT/bench/pages/cputime.sh" "${bins[@]}" | tee "$WORK/cputime.txt"

# The rounds of the two columns alternate (off, on, off, on, …): each on round is divided by the off round just
# before it, so load that drifts over the run cancels, and the median of those ratios is printed beside the ratio
# of the medians.
python3 - "$WORK/cputime.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]).read().splitlines()[1:]:
    label, binary, rest = line[:18].strip(), line[19:43].strip(), line[43:].split()
    rows[(label, binary)] = (float(rest[0]), [float(value) for value in rest[2:]])
print("\ntracing on ÷ off (target ≤ 1.15)   ratio of medians   median of paired rounds (min–max)")
for label in dict.fromkeys(label for label, _ in rows):
    off, on = rows.get((label, "tracing-off")), rows.get((label, "tracing-on"))
    if not off or not on: continue
    paired = [b / a for a, b in zip(off[1], on[1])]
    print(f"{label:<34} {on[0] / off[0]:17.2f} {statistics.median(paired):18.2f} ({min(paired):.2f}–{max(paired):.2f})")
PY
