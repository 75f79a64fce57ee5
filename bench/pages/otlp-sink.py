#!/usr/bin/env python3
"""An OTLP/HTTP sink for the tracing benchmark: answers every POST 200 and discards it, counting requests, bytes
and (when PyPI's opentelemetry-proto is importable) spans. Prints its port on the first line, the totals on SIGTERM.

Usage: otlp-sink.py   (listens on 127.0.0.1, a free port)
       SINK_DELAY_MS=20 otlp-sink.py   (answers each export that much later, without using the CPU meanwhile)
"""
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
except ImportError:
    ExportTraceServiceRequest = None

DELAY = float(os.environ.get("SINK_DELAY_MS", "0")) / 1000
totals = {"requests": 0, "bytes": 0, "spans": 0}
lock = threading.Lock()


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        spans = 0
        if ExportTraceServiceRequest is not None and self.headers.get("Content-Type") == "application/x-protobuf":
            request = ExportTraceServiceRequest.FromString(body)
            spans = sum(len(s.spans) for r in request.resource_spans for s in r.scope_spans)
        if DELAY:
            time.sleep(DELAY)
        with lock:
            totals["requests"] += 1
            totals["bytes"] += len(body)
            totals["spans"] += spans
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)


def stop(*_):
    print(f"otlp-sink: {totals['requests']} requests, {totals['bytes']} bytes, {totals['spans']} spans",
          file=sys.stderr, flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
print(server.server_address[1], flush=True)
server.serve_forever()
