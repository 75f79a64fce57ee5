#!/usr/bin/env bash
# Where a page-route request's instructions go: callgrind profile of one flow-bff binary serving the bundled pages
# with config/production.json (access log and metrics on, one event-loop thread), instrumentation switched on only
# after warm-up (`callgrind_control -i on`), then N requests on one keep-alive connection (curl). Prints the
# instructions per request of the pipeline's stages (inclusive) and keeps the profile for callgrind_annotate.
#
#   bench/pages/profile.sh [BIN] [page|next] [N]       # defaults: .build/release/flow-bff page 300
#   callgrind_annotate --inclusive=yes /tmp/flow-bff-profile/callgrind.out | less
#
# Stages overlap (the chain holds the router, the route closure holds the handler, `send` holds the access log); instruction counts include
# user space only. valgrind 3.19 cannot read a Swift release binary's DWARF, so a `strip --strip-debug` copy is
# profiled (the symbol table stays).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/.build/release/flow-bff}
KIND=${2:-page}
N=${3:-300}
OUT=/tmp/flow-bff-profile
mkdir -p "$OUT"
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
strip --strip-debug -o "$OUT/flow-bff" "$BIN"
rm -f "$OUT/callgrind.out"
FLOW_BFF_CURSOR_KEY=bench-cursor-key-bench-cursor-key-0123456789 FLOW_BFF_SERVER_WORKERS=1 \
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/callgrind.out" "$OUT/flow-bff" serve \
    --config "$ROOT/config/production.json" --pages "$ROOT/pages" --port "$PORT" >"$OUT/server.log" 2>"$OUT/valgrind.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do curl -fs -o /dev/null "$BASE/healthz" && break; sleep 0.2; done
target=/v1/pages/feed
if [ "$KIND" = next ]; then
    postback=$(curl -fs "$BASE/v1/pages/feed" | python3 -c 'import json,sys; print(json.load(sys.stdin)["page"]["pagination"]["postback"])')
    target="/v1/pages/feed/next?postback=$postback"
fi
: >"$OUT/urls"
for _ in $(seq 1 "$N"); do printf 'url = "%s"\noutput = /dev/null\n' "$BASE$target" >>"$OUT/urls"; done
curl -fs -K "$OUT/urls"
callgrind_control -i on "$pid" >/dev/null
curl -fs -K "$OUT/urls"
callgrind_control -i off "$pid" >/dev/null
kill -TERM "$pid"
wait "$pid" || true
trap - EXIT

callgrind_annotate --inclusive=yes "$OUT/callgrind.out" 2>/dev/null >"$OUT/inclusive.txt"
stage() { # LABEL PATTERN: the first symbol matching PATTERN, per request
    awk -v pattern="$2" -v label="$1" -v n="$N" '$0 ~ pattern { gsub(",", "", $1); printf "  %-50s %8.0f\n", label, $1 / n; exit }' \
        "$OUT/inclusive.txt"
}
echo "instructions per request, $KIND ($N requests, $(basename "$BIN"))"
awk -v n="$N" '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "  %-50s %8.0f\n", "total (everything while instrumented)", $1 / n; exit }' \
    "$OUT/inclusive.txt"
stage "parse the request (HTTPParser.step)" 'HTTPParserV4step'
stage "responder chain (EdgeResponder)" 'EdgeResponderV8HTTPCore13HTTPResponderAadEP7respond'
stage "  RequestContext (request id, session, client)" 'RequestContextV_4mock'
stage "    RequestID.accept" 'RequestIDO6accept'
stage "  ContextRouter.respond (match + route closure)" 'ContextRouterV7respond2to7context'
stage "    match the path's parameters" 'RouteTableV5route'
stage "    route closure (handler, reply)" 'BFFApplicationC5routey8HTTPCore9HTTPReplyOAE11HTTPRequestV_AA14RequestContextVtYbKcSS_AC6AnswerOAI_AKtYbKctFAgI_AKtYbcfU_ '
stage "      servePage" 'servePageyAC'
stage "      serveNextPage" 'serveNextPageyAC'
stage "Connection.send (head, access log, metrics)" 'ConnectionC4sendySi4head'
stage "  access log + metrics (ApplicationHTTPLog)" 'ApplicationHTTPLog[CV]6accessyy8HTTPCore18HTTPAccessLogEntryVF '
stage "    access-log line into the sink's buffer" 'StandardOutputLogSinkC9writeLine'
stage "Connection.flush (sendmsg)" 'ConnectionC5flushyyF'
