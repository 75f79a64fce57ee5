#!/usr/bin/env python3
"""The tracing acceptance check of issue 35, against the official OTLP decoder (PyPI `opentelemetry-proto`).

Starts, on 127.0.0.1: an OTLP/HTTP receiver that decodes each export into an `ExportTraceServiceRequest` (protobuf
with `FromString`; JSON with `google.protobuf.json_format.Parse`, after turning the OTLP JSON mapping's hex ids into
the base64 protobuf's JSON expects), catalog/reviews/cart upstream stubs that record the `traceparent` they get, and
`product-page-example` (its provider page calls catalog and reviews) configured only by the standard OTEL_*
variables. Sends one page request with a `traceparent`, stops the server with SIGTERM (the schedule delay is a
minute, so the spans arrive through the flush on graceful shutdown), and checks: one trace, the incoming trace id;
the server span's parent is the incoming span; the provider span is the server span's child; two client spans are
the provider span's children; semantic-convention attributes; timing nested; each upstream received the trace with
its client span as the parent.

Usage: otlp_trace_check.py BINARY http/protobuf|http/json
"""
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
INCOMING = f"00-{TRACE_ID}-{PARENT_ID}-01"

exports = []  # ExportTraceServiceRequest messages
content_types = []
seen = {}  # upstream path segment -> [traceparent]
lock = threading.Lock()
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}")


def json_to_proto(body):
    """The OTLP JSON mapping differs from protobuf's JSON in one way: trace and span ids are hex, not base64."""
    document = json.loads(body)
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    # Unknown fields are errors: every name flow-bff writes must exist in the official schema.
    return json_format.Parse(json.dumps(document), ExportTraceServiceRequest())


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        content_type = self.headers.get("Content-Type", "")
        try:
            if content_type == "application/x-protobuf":
                request = ExportTraceServiceRequest.FromString(body)
            else:
                request = json_to_proto(body)
        except Exception as error:  # a body the official decoder refuses fails the check
            with lock:
                failures.append(f"undecodable export ({content_type}): {error}")
            self.send_response(400)
            self.end_headers()
            return
        with lock:
            exports.append(request)
            content_types.append(content_type)
        answer = b"" if content_type == "application/x-protobuf" else b"{}"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


class Upstream(BaseHTTPRequestHandler):
    def do_GET(self):
        segment = self.path.strip("/").split("/")[0].split("?")[0]
        with lock:
            seen.setdefault(segment, []).append(self.headers.get("traceparent", "-"))
        if segment == "products":
            body = {"id": "p-2210", "title": "Cast Iron Skillet 26 cm", "price": "€39.00"}
        else:
            body = {"rating": 4.8, "count": 1, "items": [{"author": "Maria", "text": "Heats evenly."}]}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def serve(handler):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def attributes(span):
    values = {}
    for attribute in span.attributes:
        value = attribute.value
        values[attribute.key] = getattr(value, value.WhichOneof("value"))
    return values


def main():
    binary, protocol = sys.argv[1], sys.argv[2]
    receiver, receiver_url = serve(Receiver)
    upstream, upstream_url = serve(Upstream)
    port = free_port()
    environment = dict(os.environ)
    environment.update({
        "OTEL_SERVICE_NAME": "flow-bff-check",
        "OTEL_RESOURCE_ATTRIBUTES": "service.version=9.9.9",
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver_url,
        "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
        "OTEL_EXPORTER_OTLP_HEADERS": "x-check=yes",
        "OTEL_TRACES_SAMPLER": "parentbased_always_on",
        "OTEL_BSP_SCHEDULE_DELAY": "60000",
        "FLOW_BFF_SERVER_HOST": "127.0.0.1",
        "FLOW_BFF_LOGGING_ACCESS_LOG": "false",
    })
    process = subprocess.Popen(
        [binary, "--catalog", upstream_url, "--reviews", upstream_url, "--cart", upstream_url, "--port", str(port)],
        env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1).read()
                break
            except OSError:
                if process.poll() is not None:
                    sys.exit(f"product-page-example exited: {process.stderr.read().decode()}")
                time.sleep(0.05)
        # /healthz above is traced too (a new trace): only the page's trace is checked below.
        request = urllib.request.Request(
            base + "/v1/pages/product-live?productID=p-2210",
            headers={"traceparent": INCOMING, "tracestate": "vendor=check", "User-Agent": "Larder/5.2"})
        with urllib.request.urlopen(request, timeout=10) as response:
            check(response.status == 200, f"page status {response.status}")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            sys.exit("product-page-example did not stop within 30 s of SIGTERM")
    check(process.returncode == 0, f"exit status {process.returncode}")
    receiver.shutdown()
    upstream.shutdown()

    expected_type = "application/x-protobuf" if protocol == "http/protobuf" else "application/json"
    check(bool(content_types) and all(t == expected_type for t in content_types), f"content types {content_types}")
    spans = []
    for export in exports:
        for resource_spans in export.resource_spans:
            resource = attributes(resource_spans.resource)
            check(resource.get("service.name") == "flow-bff-check", f"service.name {resource}")
            check(resource.get("service.version") == "9.9.9", f"service.version {resource}")
            for scope_spans in resource_spans.scope_spans:
                check(scope_spans.scope.name == "flow-bff", f"scope {scope_spans.scope.name}")
                spans.extend(scope_spans.spans)
    trace = [span for span in spans if span.trace_id.hex() == TRACE_ID]
    others = [span for span in spans if span.trace_id.hex() != TRACE_ID]
    check(all(span.name == "GET /healthz" for span in others), f"other spans: {[span.name for span in others]}")
    check(len(trace) == 4, f"the page's trace has {len(trace)} spans: {[span.name for span in trace]}")
    for span in spans:
        check(len(span.span_id) == 8 and span.span_id != bytes(8), f"span id {span.span_id.hex()}")
        check(0 < span.start_time_unix_nano <= span.end_time_unix_nano, f"{span.name}: start and end")
        check(abs(span.start_time_unix_nano / 1e9 - time.time()) < 600, f"{span.name}: wall-clock start")
    for span in trace:
        check(span.trace_state == "vendor=check", f"{span.name}: tracestate {span.trace_state!r}")
        check(span.flags & 0xFF == 1, f"{span.name}: flags {span.flags}")

    servers = [span for span in trace if span.kind == Span.SPAN_KIND_SERVER]
    internals = [span for span in trace if span.kind == Span.SPAN_KIND_INTERNAL]
    clients = [span for span in trace if span.kind == Span.SPAN_KIND_CLIENT]
    check(len(servers) == 1 and len(internals) == 1 and len(clients) == 2,
          f"kinds: {[(span.name, span.kind) for span in trace]}")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    server, provider = servers[0], internals[0]

    check(server.parent_span_id.hex() == PARENT_ID, f"server span parent {server.parent_span_id.hex()}")
    check(server.name == "GET /v1/pages/{pageID}", f"server span name {server.name}")
    server_attributes = attributes(server)
    for key, value in {
        "http.request.method": "GET", "url.path": "/v1/pages/product-live", "url.scheme": "http",
        "http.route": "/v1/pages/{pageID}", "http.response.status_code": 200, "server.address": "127.0.0.1",
        "server.port": port, "user_agent.original": "Larder/5.2", "network.protocol.version": "1.1",
        "client.address": "127.0.0.1",
    }.items():
        check(server_attributes.get(key) == value, f"server span {key} = {server_attributes.get(key)!r}")
    check(server.status.code == Status.STATUS_CODE_UNSET, f"server span status {server.status}")

    check(provider.parent_span_id == server.span_id, "the provider span is the server span's child")
    check(provider.name == "provider product-live", f"provider span name {provider.name}")
    check(attributes(provider).get("flow_bff.page") == "product-live", "provider span flow_bff.page")
    check(server.start_time_unix_nano <= provider.start_time_unix_nano
          and provider.end_time_unix_nano <= server.end_time_unix_nano, "provider span inside the server span")

    by_upstream = {}
    for client in clients:
        values = attributes(client)
        by_upstream[values.get("flow_bff.upstream")] = client
        check(client.parent_span_id == provider.span_id, f"client span {client.name} is the provider span's child")
        check(client.name == "GET", f"client span name {client.name}")
        check(values.get("http.request.method") == "GET", "client http.request.method")
        check(values.get("http.response.status_code") == 200, "client http.response.status_code")
        check(values.get("server.address") == "127.0.0.1", "client server.address")
        check(str(values.get("url.full", "")).startswith(upstream_url + "/"), f"client url.full {values.get('url.full')}")
        check(provider.start_time_unix_nano <= client.start_time_unix_nano
              and client.end_time_unix_nano <= provider.end_time_unix_nano, "client span inside the provider span")
    check(set(by_upstream) == {"catalog", "reviews"}, f"upstreams {set(by_upstream)}")
    for segment, name in (("products", "catalog"), ("reviews", "reviews")):
        client = by_upstream.get(name)
        if client is None:
            continue
        expected = f"00-{TRACE_ID}-{client.span_id.hex()}-01"
        check(seen.get(segment) == [expected], f"{name} received traceparent {seen.get(segment)}, expected {expected}")

    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print(f"tracing ({protocol}): one trace {TRACE_ID}: {server.name} <- {provider.name} <- "
          f"{len(clients)} client spans (catalog, reviews); upstreams got their client span as parent; "
          f"{len(exports)} export request(s) decoded by opentelemetry-proto")


if __name__ == "__main__":
    main()
