#!/usr/bin/env bash
# Hot reload latency in the debug build `swift run` gives, with a 50,000-section (~8 MB) page present.
#
#   bench/reload/run.sh                 # EDITS=10 BIG_EDITS=3 SECTIONS=50000
#   EDITS=5 BIG_EDITS=1 bench/reload/run.sh
#   BIN=/path/to/flow-bff bench/reload/run.sh   # another binary (e.g. an older commit's), no build
#
# Serves a temporary copy of the bundled pages/ plus a generated SECTIONS-section page (`long`) with
# config/default.json (mock mode, `mock.watch` auto: inotify + poll, 150 ms debounce), then saves an unrelated
# small page (`home`, a new page title each time) EDITS times and measures, for each save, the time from the write
# to the first `GET /v1/pages/home` that shows the new title (polled every 5 ms on 127.0.0.1). The debounce is
# part of the figure: it is what a developer waits. Then, for honesty, the same for BIG_EDITS saves of the long
# page itself (a new title for its first section), which decode and check all of it again; not gated.
# Also prints the server's own reload time (`ms` of its `pages reloaded` log lines).
#
# Exit status 1 when the median unrelated-edit latency is 0.5 s or more.
set -euo pipefail

EDITS=${EDITS:-10}
BIG_EDITS=${BIG_EDITS:-3}
SECTIONS=${SECTIONS:-50000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

for tool in python3 curl; do
    command -v $tool >/dev/null || { echo "missing prerequisite: $tool" >&2; exit 2; }
done

if [[ -z "${BIN:-}" ]]; then
    (cd "$ROOT" && swift build --product flow-bff >/tmp/bench-reload-build.log 2>&1) || { cat /tmp/bench-reload-build.log >&2; exit 1; }
    BIN="$ROOT/.build/debug/flow-bff"
fi

WORK=$(mktemp -d /tmp/bench-reload.XXXXXX)
mkdir -p "$WORK/pages"
PID=
cleanup() {
    [[ -n "$PID" ]] && kill "$PID" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
cp -R "$ROOT"/pages/*.json "$ROOT"/pages/data "$WORK/pages/"
python3 - "$WORK/pages" "$SECTIONS" <<'PY'
import json, sys
directory, count = sys.argv[1], int(sys.argv[2])
sections = [{"id": f"s{i}", "title": f"Section {i}", "widgets": [
    {"id": f"row{i}", "type": "list_row", "content": {"title": f"Row {i} of the long page", "subtitle": "A row of a long page"}}]}
    for i in range(count)]
page = {"schemaVersion": 1, "kind": "page", "page": {"id": "long", "sections": sections}, "server": {"pageSize": 20}}
json.dump(page, open(f"{directory}/long.json", "w"), separators=(",", ":"))
PY

# shellcheck source=../lib/measure.sh
DURATION=0 source "$ROOT/bench/lib/measure.sh"
PORT=$(free_port)
"$BIN" serve --config "$ROOT/config/default.json" --pages "$WORK/pages" --port "$PORT" >"$WORK/out.log" 2>"$WORK/err.log" &
PID=$!
started=$(date +%s.%N)
for _ in $(seq 1200); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz" && break; sleep 0.1; done
curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz" || { cat "$WORK/err.log" >&2; exit 1; }
echo "page: $SECTIONS sections, $(du -h "$WORK/pages/long.json" | cut -f1) on disk; debug server ready in $(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')") s" >&2

python3 - "$PORT" "$WORK/pages" "$WORK/out.log" "$EDITS" "$BIG_EDITS" <<'PY'
import http.client, json, statistics, sys, time

port, directory, log_path, edits, big_edits = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)

def get(path):
    """GET on the kept-alive connection, reconnecting once when the server closed it (idle timeout)."""
    for attempt in (1, 2):
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read()
        except (http.client.HTTPException, ConnectionError):
            connection.close()
            if attempt == 2:
                raise

def reload_count():
    return json.loads(get("/__admin/status")[1])["reload"]["count"]

def wait_quiet(seconds=0.6):
    """Waits until no reload happened for `seconds` (the watcher's poll and debounce have settled)."""
    count, since = reload_count(), time.monotonic()
    deadline = since + 120
    while time.monotonic() - since < seconds and time.monotonic() < deadline:
        time.sleep(0.05)
        now = reload_count()
        if now != count:
            count, since = now, time.monotonic()

def timed_edit(file, edit, page_id, shows):
    """Saves `file` with `edit` applied (in place, like most editors) and returns the seconds until
    GET /v1/pages/<page_id> `shows` it."""
    path = f"{directory}/{file}"
    with open(path) as f:
        document = json.load(f)
    edit(document)
    text = json.dumps(document, indent=2 if file != "long.json" else None,
                      separators=None if file != "long.json" else (",", ":"))
    wait_quiet()
    start = time.monotonic()
    with open(path, "w") as f:
        f.write(text)
    deadline = start + 120
    while time.monotonic() < deadline:
        status, body = get(f"/v1/pages/{page_id}")
        if status == 200 and shows(json.loads(body)):
            return time.monotonic() - start
        time.sleep(0.005)
    raise SystemExit(f"{file}: the edit was not served within 120 s")

def reload_ms():
    """The `ms` of every `pages reloaded` log line so far."""
    figures = []
    for line in open(log_path, errors="replace"):
        if '"pages reloaded"' in line:
            try:
                figures.append(json.loads(line).get("ms"))
            except ValueError:
                pass
    return [f for f in figures if f is not None]

def report(label, times, server_ms):
    print(f"{label}: {len(times)} edits, median {statistics.median(times):.3f} s, max {max(times):.3f} s "
          f"(each: {' '.join(f'{t:.3f}' for t in times)})")
    if server_ms:
        print(f"  server reload time: median {statistics.median(server_ms):.0f} ms, max {max(server_ms):.0f} ms "
              f"({len(server_ms)} reloads)")

small = []
before = len(reload_ms())
for n in range(edits):
    title = f"Larder edit {n} {time.time_ns()}"
    def edit(document, title=title): document["page"]["title"] = title
    small.append(timed_edit("home.json", edit, "home", lambda page, title=title: page["page"].get("title") == title))
wait_quiet()
small_ms = reload_ms()[before:]

big = []
before = len(reload_ms())
for n in range(big_edits):
    title = f"Section 0, edit {n} {time.time_ns()}"
    def edit(document, title=title): document["page"]["sections"][0]["title"] = title
    big.append(timed_edit("long.json", edit, "long", lambda page, title=title: page["page"]["sections"][0].get("title") == title))
wait_quiet()
big_ms = reload_ms()[before:]

print()
report("unrelated small page (home.json) saved, write → served", small, small_ms)
if big:
    report("the 50,000-section page itself (long.json) saved, write → served", big, big_ms)
median = statistics.median(small)
print(f"\nunrelated-edit median {median:.3f} s (target < 0.5 s): {'ok' if median < 0.5 else 'FAIL'}")
sys.exit(0 if median < 0.5 else 1)
PY
