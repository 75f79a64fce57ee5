"""Paced keep-alive connections beside wrk (bench/soak/run.sh): CONNECTIONS threads, each one keep-alive connection
sending a request every 50 ms for SECONDS (`GET /healthz`, every fifth `GET /v1/pages/feed`), as the issue's
reproduction of busy connections cut after 30 s. Only requests answered at once: before the fix an answer that
waited (an api action) restarted the idle clock, so wrk's mix, with an action in every ten requests, hid the bug. A connection the server closes without `Connection: close` shows
up as an error on the next request (EOF, reset, broken pipe); one closed with `Connection: close` is reopened.

    paced.py PORT SECONDS CONNECTIONS  ->  prints "paced requests=N answered=A cut=C announced=K longest_s=L"
"""
import http.client, sys, threading, time

port, seconds, count = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
lock = threading.Lock()
totals = {"requests": 0, "answered": 0, "cut": 0, "announced": 0, "longest": 0.0}


def run(index):
    end = time.monotonic() + seconds
    connection, opened, number = None, 0.0, 0
    while time.monotonic() < end:
        number += 1
        if connection is None:
            connection, opened = http.client.HTTPConnection("127.0.0.1", port, timeout=5), time.monotonic()
        try:
            connection.request("GET", "/v1/pages/feed" if number % 5 == 0 else "/healthz")
            response = connection.getresponse()
            response.read()
            with lock:
                totals["requests"] += 1
                totals["answered"] += response.status < 500
                totals["longest"] = max(totals["longest"], time.monotonic() - opened)
            if (response.getheader("Connection") or "").lower() == "close":
                with lock:
                    totals["announced"] += 1
                connection.close()
                connection = None
        except (OSError, http.client.HTTPException):
            with lock:
                totals["requests"] += 1
                totals["cut"] += 1
            connection.close()
            connection = None
        time.sleep(0.05)


threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("paced requests=%(requests)d answered=%(answered)d cut=%(cut)d announced=%(announced)d longest_s=%(longest).1f"
      % totals)
