#!/usr/bin/env bash
# A page made from data (pages/README.md § Pages from data) against the same document written out as a static page
# file, served side by side by one flow-bff, and the time an edit of the data file takes to be served (issue 30).
#
#   bench/data/run.sh                           # ITEMS=10000 DURATION=5 ROUNDS=3 EDITS=5
#   ITEMS=2000 DURATION=3 ROUNDS=2 bench/data/run.sh
#
# `items` is one `$each` over data/items.json (ITEMS items, one section of one list_row each, 20 sections per chunk);
# `static` is the document that template makes, written out section by section. Both are served by one flow-bff
# (config/production.json, one event-loop thread pinned to core 0, wrk pinned to core 1), which made `items` once when
# it loaded the files: the figures show that a generated page is served from the representation cache like any page
# file, not made per request. The bodies are checked equal (but for the page id) before measuring. Requests: the
# first page and the next chunk, at 1 and 64 connections, the two pages alternating which goes first.
# Then, with config/default.json (mock mode, inotify + poll, 150 ms debounce), EDITS saves of data/items.json (a new
# title for the first item) and, for each, the time from the write to the first GET that shows it (polled every 5 ms).
#
# Exit status 1 when any run had errors, when the generated page costs more than 1.1× the static one (CPU per
# request, median, 64 connections), or when the median edit latency is 0.5 s or more.
set -euo pipefail

DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
ITEMS=${ITEMS:-10000}
EDITS=${EDITS:-5}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

missing=()
for tool in wrk taskset python3 curl; do command -v $tool >/dev/null || missing+=($tool); done
if ((${#missing[@]})); then
    echo "missing prerequisites; run: sudo apt-get install -y ${missing[*]/taskset/util-linux}" >&2
    exit 2
fi

(cd "$ROOT" && swift build -c release --product flow-bff >/tmp/bench-data-build.log 2>&1) || { cat /tmp/bench-data-build.log >&2; exit 1; }
BIN="$ROOT/.build/release/flow-bff"

WORK=$(mktemp -d /tmp/bench-data.XXXXXX)
mkdir -p "$WORK/pages/data"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
python3 - "$WORK/pages" "$ITEMS" <<'PY'
import json, sys
directory, count = sys.argv[1], int(sys.argv[2])
items = [{"id": f"i-{n}", "title": f"Item {n}", "subtitle": f"Shelf {n % 40}, bin {n % 7}", "price": f"€{n % 90 + 5}.{n % 100:02d}"}
         for n in range(count)]
json.dump(items, open(f"{directory}/data/items.json", "w"), separators=(",", ":"))
def section(id_, title, subtitle, price):
    return {"id": f"s.{id_}", "title": title, "widgets": [
        {"id": f"row.{id_}", "type": "list_row", "content": {"title": title, "subtitle": subtitle, "trailing": price}}]}
template = {"schemaVersion": 1, "kind": "page", "page": {"id": "items", "title": "Items", "sections": [
    {"$each": "data.items", "as": "item",
     "section": section("{{item.id}}", "{{item.title}}", "{{item.subtitle}}", "{{item.price}}")}]},
    "server": {"pageSize": 20}}
written = {"schemaVersion": 1, "kind": "page", "page": {"id": "static", "title": "Items", "sections": [
    section(i["id"], i["title"], i["subtitle"], i["price"]) for i in items]}, "server": {"pageSize": 20}}
json.dump(template, open(f"{directory}/items.json", "w"), separators=(",", ":"))
json.dump(written, open(f"{directory}/static.json", "w"), separators=(",", ":"))
PY

# shellcheck source=../lib/measure.sh
source "$ROOT/bench/lib/measure.sh"
PORT=$(free_port)
FLOW_BFF_SERVER_HOST=127.0.0.1 FLOW_BFF_SERVER_WORKERS=1 FLOW_BFF_SERVER_SHUTDOWN_GRACE_SECONDS=0 \
    FLOW_BFF_CURSOR_KEY=bench-cursor-key-bench-cursor-key-0123456789 \
    taskset -c 0 "$BIN" serve --config "$ROOT/config/production.json" --pages "$WORK/pages" --port "$PORT" \
    >"$WORK/access.log" 2>"$WORK/bff.err" &
BFF_PID=$!
PIDS+=("$BFF_PID")
started=$(date +%s.%N)
for _ in $(seq 600); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz" && break; sleep 0.1; done
curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz" || { cat "$WORK/bff.err" >&2; exit 1; }
echo "ready after $(python3 -c "print(round($(date +%s.%N) - $started, 2))") s with $ITEMS items (both pages)" >&2
base="http://127.0.0.1:$PORT"

next_of() { # pageID → its next-chunk target
    curl -fs "$base/v1/pages/$1" | python3 -c 'import json,sys,urllib.parse as u
print(f"/v1/pages/{sys.argv[1]}/next?postback=" + u.quote(json.load(sys.stdin)["page"]["pagination"]["postback"]))' "$1"
}
ITEMS_NEXT=$(next_of items)
STATIC_NEXT=$(next_of static)
# The same document: the bodies differ only in the page id (and the cursors, which name the page and its version).
python3 - "$base" "$ITEMS_NEXT" "$STATIC_NEXT" <<'PY'
import json, sys, urllib.request
base, items_next, static_next = sys.argv[1:]
get = lambda path: json.load(urllib.request.urlopen(base + path))
def strip(document):
    document.get("page", document).pop("pagination", None)
    document.pop("pagination", None)
    if "page" in document:
        document["page"]["id"] = "-"
    return document
assert strip(get("/v1/pages/items")) == strip(get("/v1/pages/static")), "first pages differ"
assert strip(get(items_next)) == strip(get(static_next)), "next chunks differ"
PY
echo "same document: ok (first page and next chunk)" >&2

RESULTS="$WORK/results.tsv"
: >"$RESULTS"
echo "running: $ROUNDS rounds x {1,64} connections x {first page, next chunk} x 2 pages, ${DURATION}s each" >&2
for round in $(seq "$ROUNDS"); do
    for conns in 1 64; do
        for what in "first page" "next chunk"; do
            if ((round % 2)); then order="items static"; else order="static items"; fi
            for page in $order; do
                if [[ $what == "first page" ]]; then target="/v1/pages/$page"
                elif [[ $page == items ]]; then target=$ITEMS_NEXT
                else target=$STATIC_NEXT; fi
                server=template; [[ $page == static ]] && server=static
                measure "$RESULTS" "$server" "$what" "$BFF_PID" "$base$target" "$conns" plain "$round"
            done
        done
    done
    echo "round $round done" >&2
done
kill -TERM "$BFF_PID"; wait "$BFF_PID" 2>/dev/null || true

echo
echo "## A page made from $ITEMS data items vs the same page written out (one flow-bff), medians of $ROUNDS rounds of ${DURATION}s"
echo
status=0
python3 "$ROOT/bench/lib/wrkstat.py" table "$RESULTS" static || status=1
python3 - "$RESULTS" <<'PY' || status=1
import statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]) if line.strip()]
cpu = lambda server, tag: statistics.median(float(r[7]) for r in rows if r[0] == server and r[1] == tag and r[2] == "64")
worst = max(cpu("template", tag) / cpu("static", tag) for tag in ("first page", "next chunk"))
print(f"CPU per request, template ÷ static at 64 connections, worst of the two requests: {worst:.2f} (target ≤ 1.10)")
sys.exit(0 if worst <= 1.10 else 1)
PY

# Edits of the data file, served by the mock's hot reload.
PORT=$(free_port)
"$BIN" serve --config "$ROOT/config/default.json" --pages "$WORK/pages" --port "$PORT" >"$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK_PID=$!
PIDS+=("$MOCK_PID")
for _ in $(seq 600); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz" && break; sleep 0.1; done
latencies=()
for edit in $(seq "$EDITS"); do
    python3 - "$WORK/pages/data/items.json" "$edit" <<'PY'
import json, os, sys
path, edit = sys.argv[1], sys.argv[2]
items = json.load(open(path))
items[0]["title"] = f"Edited {edit}"
json.dump(items, open(path + ".tmp", "w"), separators=(",", ":"))
os.replace(path + ".tmp", path)
PY
    t0=$(date +%s.%N)
    for _ in $(seq 2000); do
        curl -fs "http://127.0.0.1:$PORT/v1/pages/items" | grep -q "\"Edited $edit\"" && break
        sleep 0.005
    done
    t1=$(date +%s.%N)
    latencies+=("$(python3 -c "print(round($t1 - $t0, 3))")")
    sleep 0.3
done
kill -TERM "$MOCK_PID"; wait "$MOCK_PID" 2>/dev/null || true
echo
echo "## An edit of data/items.json ($ITEMS items) served by the mock's hot reload (write → first GET showing it)"
echo
python3 - "${latencies[@]}" <<'PY' || status=1
import statistics, sys
values = [float(v) for v in sys.argv[1:]]
median = statistics.median(values)
print("seconds per edit: " + ", ".join(f"{v:.3f}" for v in values) + f"; median {median:.3f} (target < 0.5)")
sys.exit(0 if median < 0.5 else 1)
PY
exit $status
