#!/usr/bin/env bash
# flow-bff's composed provider page (product-page-example, `GET /v1/pages/product-live?productID=p-2210`, catalog +
# reviews fetched concurrently from upstream) and its `live.cart.add` action vs a reference BFF in Go net/http
# (bench/upstreams/reference) doing the same composition against the same upstreams. "distinct" is the same page for
# p-3307, whose reviews upstream answers differently on every request: every composed page is new, so nothing
# flow-bff keeps per page version (the checked page, its encoded and compressed bytes) is reused.
#
#   bench/upstreams/run.sh                                    # DURATION=10 ROUNDS=2
#   BFF_BIN=/tmp/ppe-baseline DURATION=3 ROUNDS=1 bench/upstreams/run.sh
#
# Cores: the BFF under test (one at a time, order alternating per round) on core 0; wrk and the upstream nginx
# (worker_processes 1, access log off, stub_status for the upstream request count) on core 1. Go runs with
# GOMAXPROCS=1; product-page-example ignores FLOW_BFF_* variables (it builds BFFConfiguration() itself), so
# taskset -c 0 is what bounds it.
set -euo pipefail

DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-2}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/upstreams"

missing=()
for tool in wrk taskset python3 curl nginx go; do command -v $tool >/dev/null || missing+=($tool); done
if ((${#missing[@]})); then
    missing=("${missing[@]/taskset/util-linux}")
    echo "missing prerequisites; run: sudo apt-get install -y ${missing[*]/go/golang-go}" >&2
    exit 2
fi

if [[ -z ${BFF_BIN:-} ]]; then
    (cd "$ROOT" && swift build -c release --product product-page-example >/tmp/bench-upstreams-build.log 2>&1) \
        || { cat /tmp/bench-upstreams-build.log >&2; exit 1; }
    BFF_BIN="$ROOT/.build/release/product-page-example"
fi

WORK=$(mktemp -d /tmp/bench-upstreams.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/nginx/logs"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

(cd "$HERE/reference" && GOFLAGS=-mod=mod GOPROXY=off GOCACHE=${GOCACHE:-$WORK/gocache} go build -o "$WORK/reference" .)

# shellcheck source=../lib/measure.sh
source "$ROOT/bench/lib/measure.sh"

# The upstream documents, exactly as Sources/ProductPageExample/DemoUpstreams.swift answers them.
NGINX_PORT=$(free_port)
cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    default_type application/json;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location = /products/p-2210 { return 200 '{"id":"p-2210","title":"Cast Iron Skillet 26 cm","price":"€39.00","imageURL":"https://img.example.com/products/p-2210/hero@3x.jpg","description":"Pre-seasoned and oven-safe to 260 °C."}'; }
        location = /products/p-3307 { return 200 '{"id":"p-3307","title":"Carbon Steel Wok 32 cm","price":"€54.00","imageURL":"https://img.example.com/products/p-3307/hero@3x.jpg","description":"Hand-hammered, for gas and induction."}'; }
        location = /reviews {
            # p-3307: a review that differs on every request (nginx's \$request_id), so every composed page is new.
            if (\$arg_productID = p-3307) { return 200 '{"rating":4.6,"count":98,"items":[{"author":"Lena","text":"Order \$request_id arrived well packed."}]}'; }
            return 200 '{"rating":4.8,"count":312,"items":[{"author":"Maria","text":"Heats evenly, worth the weight."},{"author":"Jonas","text":"Great sear on steaks."}]}';
        }
        location = /cart/items { return 200 '{"count":1}'; }
        location = /nginx_status { stub_status; }
    }
}
CONF
taskset -c 1 nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
PIDS+=($!)
UP="http://127.0.0.1:$NGINX_PORT"
for _ in $(seq 100); do curl -fs -o /dev/null "$UP/nginx_status" && break; sleep 0.1; done
curl -fs -o /dev/null "$UP/nginx_status" || { cat "$WORK/nginx/logs/error.log" >&2; exit 1; }

BFF_PORT=$(free_port)
taskset -c 0 "$BFF_BIN" --catalog "$UP" --reviews "$UP" --cart "$UP" --port "$BFF_PORT" --pages "$ROOT/pages" \
    >"$WORK/bff.out" 2>"$WORK/bff.err" &
BFF_PID=$!
PIDS+=("$BFF_PID")
GO_PORT=$(free_port)
GOMAXPROCS=1 taskset -c 0 "$WORK/reference" --catalog "$UP" --reviews "$UP" --cart "$UP" --port "$GO_PORT" \
    2>"$WORK/go.err" &
GO_PID=$!
PIDS+=("$GO_PID")

PAGE="/v1/pages/product-live?productID=p-2210"
# The same composition whose reviews upstream answers differently on every request: no two pages are equal.
DISTINCT="/v1/pages/product-live?productID=p-3307"
ACTION="/v1/actions/live.cart.add"
BFF="http://127.0.0.1:$BFF_PORT"
GO="http://127.0.0.1:$GO_PORT"
for base in "$BFF" "$GO"; do
    for _ in $(seq 300); do curl -fs -o /dev/null "$base$PAGE" && break; sleep 0.1; done
done

# The answers, before measuring: 200, not degraded, the same composition.
curl -fs "$BFF$PAGE" -o "$WORK/bff.json" || { echo "flow-bff page failed" >&2; cat "$WORK/bff.err" >&2; exit 1; }
curl -fs "$GO$PAGE" -o "$WORK/go.json" || { echo "Go reference page failed" >&2; cat "$WORK/go.err" >&2; exit 1; }
ACTION_BODY='{"pageID":"product-live","widgetID":"product.addToCart","event":"tap","payload":{"productID":"p-2210"}}'
for base in "$BFF" "$GO"; do
    code=$(curl -s -o "$WORK/action.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        -d "$ACTION_BODY" "$base$ACTION")
    [[ $code == 200 ]] || { echo "action at $base answered $code: $(cat "$WORK/action.json")" >&2; exit 1; }
done
python3 "$HERE/compare.py" "$WORK/bff.json" "$WORK/go.json" >&2
for base in "$BFF" "$GO"; do
    a=$(curl -fs "$base$DISTINCT") && b=$(curl -fs "$base$DISTINCT") || { echo "distinct page failed at $base" >&2; exit 1; }
    [[ $a != "$b" && $a != *degradations* ]] || { echo "distinct page at $base is not distinct or is degraded" >&2; exit 1; }
done

cat >"$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$ACTION_BODY'
wrk.headers["Content-Type"] = "application/json"
LUA

nginx_requests() { curl -fs "$UP/nginx_status" | awk 'NR == 3 {print $3}'; }
UPSTREAM="$WORK/upstream.tsv"
: >"$UPSTREAM"
# measure_up: bench/lib/measure.sh's measure, plus nginx's request count over the run (minus the status fetches)
# → upstream calls per second. With SCRIPT set, wrk runs that Lua script (the POST action).
SCRIPT=""
measure_up() { # OUTPUT SERVER TAG PID URL CONNS ENC ROUND
    local before after
    before=$(nginx_requests)
    WRK_SCRIPT=$SCRIPT measure "$@"
    after=$(nginx_requests)
    printf '%s\t%s\t%s\t%s\t%s\n' "$2" "$3" "$6" "$8" "$(((after - before - 1) / DURATION))" >>"$UPSTREAM"
}

RESULTS="$WORK/results.tsv"
DIRECT="$WORK/direct.tsv"
: >"$RESULTS"
: >"$DIRECT"
echo "running: $ROUNDS rounds x {1,64} connections x {page plain, page gzip, distinct page, action} x 2 servers," \
    "${DURATION}s each" >&2
for round in $(seq "$ROUNDS"); do
    if ((round % 2)); then order="go flow-bff"; else order="flow-bff go"; fi
    for conns in 1 64; do
        for what in "page plain" "page gzip" "distinct plain" "action plain"; do
            route=$PAGE; SCRIPT=""
            [[ $what == distinct* ]] && route=$DISTINCT
            [[ $what == action* ]] && { route=$ACTION; SCRIPT="$WORK/post.lua"; }
            for server in $order; do
                if [[ $server == go ]]; then
                    measure_up "$RESULTS" go-net/http "$what" "$GO_PID" "$GO$route" "$conns" "${what#* }" "$round"
                else
                    measure_up "$RESULTS" flow-bff "$what" "$BFF_PID" "$BFF$route" "$conns" "${what#* }" "$round"
                fi
            done
        done
    done
    SCRIPT=""
    NGINX_WORKER=$(pgrep -P "${PIDS[0]}" | head -1)
    measure "$DIRECT" nginx "catalog GET" "$NGINX_WORKER" "$UP/products/p-2210" 1 plain "$round"
    measure "$DIRECT" nginx "reviews GET" "$NGINX_WORKER" "$UP/reviews?productID=p-2210" 1 plain "$round"
    echo "round $round done" >&2
done

echo
echo "## Composed provider page + cart action: flow-bff vs Go net/http (reference), medians of $ROUNDS rounds of ${DURATION}s"
echo
status=0
python3 "$ROOT/bench/lib/wrkstat.py" table "$RESULTS" go-net/http || status=1
echo
echo "## Upstream calls per second (nginx stub_status requests over each run)"
echo
python3 "$HERE/extra.py" upstream "$UPSTREAM"
echo
echo "## Composition overhead at 1 connection (p50, µs)"
echo
python3 "$HERE/extra.py" overhead "$RESULTS" "$DIRECT"
echo
echo "## flow-bff /metrics: flow_bff_upstream_*"
echo
curl -fs "$BFF/metrics" -o "$WORK/metrics.txt"
grep '^flow_bff_upstream_' "$WORK/metrics.txt" || echo "(no flow_bff_upstream_ lines)"
timeouts=$(awk '/^flow_bff_upstream_/ && /outcome="upstream_timeout"/ {n += $NF} END {print n + 0}' "$WORK/metrics.txt")
echo
echo "upstream timeouts (outcome=\"upstream_timeout\"): $timeouts"
exit $status
