#!/usr/bin/env bash
# flow-bff's page routes vs nginx serving the same bytes, plus next-chunk cost on a 100- vs 100,000-section page.
#
#   bench/pages/run.sh                      # DURATION=5 ROUNDS=3
#   DURATION=3 ROUNDS=2 bench/pages/run.sh  # quicker
#
# flow-bff runs as in production (config/production.json: access log and metrics on, shared cursor key), with
# one event-loop thread pinned to core 0; nginx (worker_processes 1, access log ON but buffered, open_file_cache,
# gzip_static: tuned as a careful operator would) is pinned to
# core 0 too, wrk to core 1. Requests: the feed's first page (`GET /v1/pages/feed`) and a next-page chunk
# (`GET /v1/pages/feed/next?postback=…`), plain and gzip, at 1 and 64 connections; the servers alternate every
# run. nginx serves the exact bytes flow-bff sent (identity and gzip), checked by hash before measuring.
# Then next-chunk latency on flow-bff alone: the chunk at position 50 of a 100-section page vs the chunk at
# position 50,000 of a 100,000-section page (same chunk size); their ratio should be close to 1.
set -euo pipefail

DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KEY=bench-cursor-key-bench-cursor-key-0123456789

missing=()
for tool in wrk taskset python3 curl; do command -v $tool >/dev/null || missing+=($tool); done
if ! command -v nginx >/dev/null || ! nginx -V 2>&1 | grep -q http_gzip_static_module; then missing+=(nginx); fi
if ((${#missing[@]})); then
    echo "missing prerequisites; run: sudo apt-get install -y ${missing[*]/taskset/util-linux}" >&2
    exit 2
fi

(cd "$ROOT" && swift build -c release --product flow-bff >/tmp/bench-pages-build.log 2>&1) || { cat /tmp/bench-pages-build.log >&2; exit 1; }
BIN="$ROOT/.build/release/flow-bff"

WORK=$(mktemp -d /tmp/bench-pages.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/pages" "$WORK/www" "$WORK/nginx/logs"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
cp -R "$ROOT"/pages/*.json "$ROOT"/pages/data "$WORK/pages/"
python3 - "$WORK/pages" <<'PY'
import json, sys
for name, count in (("sections100", 100), ("sections100k", 100_000)):
    sections = [{"id": f"s{i}", "title": f"Section {i}", "widgets": [
        {"id": f"row{i}", "type": "list_row", "content": {"title": f"Row {i}", "subtitle": "A row of a long page"}}]}
        for i in range(count)]
    page = {"schemaVersion": 1, "kind": "page", "page": {"id": name, "sections": sections}, "server": {"pageSize": 10}}
    json.dump(page, open(f"{sys.argv[1]}/{name}.json", "w"), separators=(",", ":"))
PY

# shellcheck source=../lib/measure.sh
source "$ROOT/bench/lib/measure.sh"
BFF_PORT=$(free_port)
FLOW_BFF_CURSOR_KEY=$KEY FLOW_BFF_SERVER_HOST=127.0.0.1 FLOW_BFF_SERVER_WORKERS=1 FLOW_BFF_SERVER_SHUTDOWN_GRACE_SECONDS=0 \
    taskset -c 0 "$BIN" serve --config "$ROOT/config/production.json" --pages "$WORK/pages" --port "$BFF_PORT" \
    >"$WORK/access.log" 2>"$WORK/bff.err" &
BFF_PID=$!
PIDS+=("$BFF_PID")
for _ in $(seq 300); do curl -fs -o /dev/null "http://127.0.0.1:$BFF_PORT/readyz" && break; sleep 0.1; done
curl -fs -o /dev/null "http://127.0.0.1:$BFF_PORT/readyz" || { cat "$WORK/bff.err" >&2; exit 1; }

base="http://127.0.0.1:$BFF_PORT"
postback=$(curl -fs "$base/v1/pages/feed" | python3 -c 'import json,sys; print(json.load(sys.stdin)["page"]["pagination"]["postback"])')
FEED_NEXT="/v1/pages/feed/next?postback=$postback"
# Cursors deep inside the long pages, signed with the shared key (cursors are self-contained: any holder of the
# key can mint one; the version comes from the page's first cursor).
cursor_at() { # pageID position
    curl -fs "$base/v1/pages/$1" | python3 -c '
import base64, hashlib, hmac, json, sys
page_id, position, key = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
first = json.load(sys.stdin)["page"]["pagination"]["postback"]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
payload = first.split(".")[0]
version = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["v"]
body = b64(json.dumps({"p": page_id, "v": version, "o": position}, separators=(",", ":")).encode())
print(body + "." + b64(hmac.new(key, body.encode(), hashlib.sha256).digest()))' "$1" "$2" "$KEY"
}
SMALL_NEXT="/v1/pages/sections100/next?postback=$(cursor_at sections100 50)"
LARGE_NEXT="/v1/pages/sections100k/next?postback=$(cursor_at sections100k 50000)"
for target in "$SMALL_NEXT" "$LARGE_NEXT"; do
    [[ $(curl -fs -o /dev/null -w '%{http_code}' "$base$target") == 200 ]] || { echo "cursor rejected: $target" >&2; exit 1; }
done

# The same bytes for nginx: identity and gzip exactly as flow-bff sent them.
curl -fs "$base/v1/pages/feed" -o "$WORK/www/feed.json"
curl -fs -H 'Accept-Encoding: gzip' "$base/v1/pages/feed" -o "$WORK/www/feed.json.gz"
curl -fs "$base$FEED_NEXT" -o "$WORK/www/feed-next.json"
curl -fs -H 'Accept-Encoding: gzip' "$base$FEED_NEXT" -o "$WORK/www/feed-next.json.gz"
chmod -R a+rX "$WORK/www"

NGINX_PORT=$(free_port)
cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    # What a careful operator sets for static files: descriptors and stat results cached, the access log written
    # in 64 KiB batches (flow-bff batches its log too).
    access_log $WORK/nginx/logs/access.log combined buffer=64k flush=1s;
$NGINX_TUNED
    gzip off;
    gzip_static on;
    etag on;
    types { application/json json; }
    server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; location / { } }
}
CONF
taskset -c 0 nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
NGINX_MASTER=$!
PIDS+=("$NGINX_MASTER")
for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$NGINX_PORT/feed.json" && break; sleep 0.1; done
NGINX_WORKER=$(pgrep -P "$NGINX_MASTER" | head -1)
[[ -n "$NGINX_WORKER" ]] || { echo "nginx did not start" >&2; exit 1; }

for pair in "feed.json|/v1/pages/feed" "feed-next.json|$FEED_NEXT"; do
    file=${pair%%|*}; route=${pair#*|}
    for enc in identity gzip; do
        a=$(curl -fs -H "Accept-Encoding: $enc" "http://127.0.0.1:$NGINX_PORT/$file" | sha256sum)
        b=$(curl -fs -H "Accept-Encoding: $enc" "$base$route" | sha256sum)
        [[ "$a" == "$b" ]] || { echo "servers differ on $file ($enc)" >&2; exit 1; }
    done
done
echo "same bytes: ok (nginx :$NGINX_PORT, flow-bff :$BFF_PORT)" >&2

RESULTS="$WORK/results.tsv"
LATENCY="$WORK/latency.tsv"
: >"$RESULTS"
: >"$LATENCY"

echo "running: $ROUNDS rounds x {1,64} connections x {first page, next chunk} x {plain, gzip} x 2 servers, ${DURATION}s each" >&2
for round in $(seq "$ROUNDS"); do
    for conns in 1 64; do
        for what in page next; do
            for enc in plain gzip; do
                if [[ $what == page ]]; then bff="$base/v1/pages/feed"; ngx="http://127.0.0.1:$NGINX_PORT/feed.json"
                else bff="$base$FEED_NEXT"; ngx="http://127.0.0.1:$NGINX_PORT/feed-next.json"; fi
                if ((round % 2)); then order="nginx flow-bff"; else order="flow-bff nginx"; fi
                for server in $order; do
                    if [[ $server == nginx ]]; then
                        measure "$RESULTS" nginx "feed $what $enc" "$NGINX_WORKER" "$ngx" "$conns" "$enc" "$round"
                    else
                        measure "$RESULTS" flow-bff "feed $what $enc" "$BFF_PID" "$bff" "$conns" "$enc" "$round"
                    fi
                done
            done
        done
    done
    # The two pages alternate which goes first, like the servers above (no order bias in the ratio).
    if ((round % 2)); then sizes="100 100k"; else sizes="100k 100"; fi
    for size in $sizes; do
        target=$SMALL_NEXT; [[ $size == 100k ]] && target=$LARGE_NEXT
        measure "$LATENCY" "sections$size" "next chunk" "$BFF_PID" "$base$target" 1 plain "$round"
    done
    echo "round $round done" >&2
done

echo
echo "## Page routes: flow-bff vs nginx (same bytes), medians of $ROUNDS rounds of ${DURATION}s"
echo
python3 "$ROOT/bench/lib/wrkstat.py" table "$RESULTS" nginx
status=$?
echo
echo "## Next-chunk cost: 100-section vs 100,000-section page (flow-bff, 1 connection)"
echo
python3 "$ROOT/bench/lib/wrkstat.py" table "$LATENCY" sections100 || status=1
echo
echo "access log lines written by flow-bff: $(grep -c '"requestID"' "$WORK/access.log"); nginx: $(wc -l <"$WORK/nginx/logs/access.log")"
kill -TERM "$BFF_PID"
wait "$BFF_PID" && echo "flow-bff exited 0 after SIGTERM" >&2
exit $status
