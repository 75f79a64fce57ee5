"""Clients for scripts/chaos-test (python3, standard library only).

    chaos_client.py crawl LB_PORT SECONDS THREADS KILL_FILE OUT_JSON
        THREADS loops of: the feed's first page, then every next chunk with the cursor the last answer carried
        (each request may land on another replica), then one `cart.setQuantity` with a fresh Idempotency-Key,
        retried with the same key until it is answered 200 (a lost answer, a 502, a 409 while a claim's lease
        runs), then sent once more to check it is replayed. KILL_FILE holds the time the replica was killed;
        requests are counted before and after it.

    chaos_client.py actions LB_PORT THREADS STOP_FILE OUT_JSON
        THREADS loops of one key each, until STOP_FILE exists: a `cart.setQuantity` in a session of its own
        (`X-Flow-Session: chaos-T-N`, so the mock replicas count how often it ran), retried with the same key
        until answered 200, then sent once more until that is answered 200 too (replayed, or run again).
"""

import collections
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

KEY_DEADLINE = 45.0  # a key is given up after this: longer than the 30 s claim lease
BODY = '{"pageID":"cart","widgetID":"qty.p-1042","event":"change","value":%d,"payload":{"productID":"p-1042"}}'


class Client:
    def __init__(self, port):
        self.port = port
        self.connection = None

    def send(self, method, path, body=None, headers=None):
        """(status or exception name, headers, body bytes, seconds)."""
        started = time.monotonic()
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            self.connection.request(method, path, body=body, headers=headers or {})
            response = self.connection.getresponse()
            data = response.read()
            if response.getheader("Connection", "").lower() == "close":
                self.close()
            return str(response.status), dict(response.getheaders()), data, time.monotonic() - started
        except Exception as error:  # a socket error is what the client sees: record its kind
            self.close()
            return type(error).__name__, {}, b"", time.monotonic() - started

    def close(self):
        if self.connection is not None:
            self.connection.close()
        self.connection = None


def outcome(status, headers, data):
    """The status, with the problem code for a problem answer."""
    if status.isdigit() and int(status) >= 400 and headers.get("Content-Type", "").startswith("application/problem"):
        try:
            return status + " " + json.loads(data)["code"]
        except (ValueError, KeyError):
            pass
    return status


def keyed_action(client, key, session, value, seen, latencies):
    """Sends the key until answered 200, then once more until that is answered 200. Returns (first, second)
    where each is "fresh" (ran), "replayed" or "gave up". A first answer that is a replay after an attempt that got
    no answer of the server's own (nginx's 502 for a replica that died after running the action and storing its
    answer) is "replayed after a lost answer": the action ran once and the client got its answer, as promised."""
    body = BODY % value
    headers = {"Content-Type": "application/json", "Idempotency-Key": key}
    if session:
        headers["X-Flow-Session"] = session
    answers = []
    first_body = None
    for _ in range(2):
        deadline = time.monotonic() + KEY_DEADLINE
        result = "gave up"
        lost = False
        while time.monotonic() < deadline:
            status, response_headers, data, seconds = client.send(
                "POST", "/v1/actions/cart.setQuantity", body, headers)
            latencies.append(seconds)
            seen[outcome(status, response_headers, data)] += 1
            if status == "200":
                replayed = response_headers.get("Idempotent-Replayed") == "true"
                if replayed and first_body is not None and data != first_body:
                    result = "replayed other bytes"
                elif replayed and first_body is None and lost:
                    result = "replayed after a lost answer"
                else:
                    result = "replayed" if replayed else "fresh"
                first_body = first_body or data
                break
            lost = lost or status in ("502", "504") or not status.isdigit()
            time.sleep(0.5 if status == "409" else 0.2)
        answers.append(result)
    return answers


def crawl(port, seconds, threads, kill_file, output):
    lock = threading.Lock()
    totals = {"before": collections.Counter(), "after": collections.Counter()}
    crawls = collections.Counter()
    keys = collections.Counter()
    action_seen = collections.Counter()
    latencies = []
    kill_time = [None]

    def phase():
        if kill_time[0] is None and os.path.exists(kill_file):
            with open(kill_file) as file:
                kill_time[0] = float(file.read())
        return "after" if kill_time[0] is not None and time.time() >= kill_time[0] else "before"

    def run(index):
        client = Client(port)
        end = time.monotonic() + seconds
        number = 0
        while time.monotonic() < end:
            number += 1
            path, kind, ok = "/v1/pages/feed", "first", True
            while path:
                when = phase()
                status, _, data, _ = client.send("GET", path)
                with lock:
                    totals[when][kind + " " + status] += 1
                if status != "200":
                    ok = False
                    break
                document = json.loads(data)
                pagination = document.get("page", document)["pagination"]
                path = None
                if pagination.get("hasMore"):
                    path = "/v1/pages/feed/next?postback=" + urllib.parse.quote(pagination["postback"])
                    kind = "next"
            local_seen = collections.Counter()
            local_latencies = []
            answers = keyed_action(client, "crawl-%d-%d-%d" % (os.getpid(), index, number), None, number % 9 + 1,
                                   local_seen, local_latencies)
            with lock:
                crawls["passed" if ok else "failed"] += 1
                keys[" then ".join(answers)] += 1
                action_seen.update(local_seen)
                latencies.extend(local_latencies)

    workers = [threading.Thread(target=run, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    with open(output, "w") as file:
        json.dump({"before": totals["before"], "after": totals["after"], "crawls": crawls, "keys": keys,
                   "actions": action_seen, "slowest": max(latencies, default=0)}, file)


def actions(port, threads, stop_file, output):
    lock = threading.Lock()
    sessions = {}
    seen = collections.Counter()
    latencies = []

    def run(index):
        client = Client(port)
        number = 0
        while not os.path.exists(stop_file) and number < 2000:
            number += 1
            session, key = "chaos-%d-%d" % (index, number), "key-%d-%d-%d" % (os.getpid(), index, number)
            local_seen = collections.Counter()
            local_latencies = []
            answers = keyed_action(client, key, session, number % 9 + 1, local_seen, local_latencies)
            with lock:
                sessions[session] = answers
                seen.update(local_seen)
                latencies.extend(local_latencies)
            time.sleep(0.02)

    workers = [threading.Thread(target=run, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    with open(output, "w") as file:
        json.dump({"sessions": sessions, "seen": seen, "slowest": max(latencies, default=0),
                   "requests": len(latencies)}, file)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "crawl":
        crawl(int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6])
    elif mode == "actions":
        actions(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        sys.exit("usage: chaos_client.py crawl|actions …")
