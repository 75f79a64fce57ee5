"""The browser preview in headless Chromium (docs/preview.md), driven through chromedriver by selenium.

Starts the built flow-bff on 127.0.0.1 port 0 (mock mode, config/default.json) over a temporary copy of pages/
plus a widget gallery (one widget of every catalog type, an unknown type and invalid content), then checks:
every page renders with zero JavaScript errors, every catalog widget type is visible, infinite scroll reaches the
end of feed, the cart stepper round trip updates the totals, an edited page file shows up without a reload
(scroll position and stepper state kept), and a broken edit shows the error while the last good page stays.
The look: a bottom sheet has a backdrop (a click on it closes the sheet) and a grab handle; a page footer stays
pinned to the bottom of the frame while the page scrolls and hides no content; in light and dark every button's
text has at least 4.5:1 contrast and the carousel's scrollbar is dark in dark mode; theme=auto follows the
system's prefers-color-scheme; the requests panel shows only this preview's requests without a session (with the
answer's size) and the session's other clients with one; the mock's `/` index is styled, light and dark.
Then the admin API's defences (docs/mock.md § Who can reach the mock): a page at http://evil.example:PORT that
Chromium resolves to 127.0.0.1 (--host-resolver-rules, a DNS rebinding) cannot read /__admin/journal nor POST
/__admin/reset, and a cross-site form POST (text/plain) to the real address is refused; all with a problem
document, and the preview itself, under its Content-Security-Policy, kept working throughout.
Last, the proxy (docs/proxy.md): a second flow-bff with `--upstream` in front of a small upstream (this script's
own HTTP server, which can send what a flow-bff never would — a duplicate widget id): an upstream-only page renders
and its request is marked "from upstream", the upstream's contract violation is listed in the diagnostics panel
with its code and pointer, and the source control switches a local page to the upstream and back. Before that, a
HAR 1.2 capture of the preview scrolling feed to its end and firing an action, built from Chromium's own DevTools
network events and response bodies, is checked against HAR 1.2's required fields and imported with
`flow-bff import har`; `flow-bff check` accepts the folder and feed has every section.
Screenshots of each page go to the artifacts directory (argv[2], default .build/preview-screenshots).

Usage: preview_test.py FLOW_BFF_EXECUTABLE [ARTIFACTS_DIR]
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

EXECUTABLE = sys.argv[1]
ARTIFACTS = sys.argv[2] if len(sys.argv) > 2 else ".build/preview-screenshots"
TIMEOUT = 10  # seconds any one wait may take
failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)


def gallery_page(types):
    """A page with one widget of every catalog type, an unknown type and one invalid widget."""
    samples = {
        "text": {"text": "Text", "style": "headline"},
        "image": {"url": "https://img.example.com/x.jpg", "alt": "An image", "aspectRatio": 2},
        "button": {"title": "Button"},
        "stepper": {"value": 1, "label": "Stepper", "min": 0, "max": 3},
        "accordion": {"title": "Accordion", "expanded": True},
        "carousel": {"title": "Carousel"},
        "banner": {"title": "Banner", "subtitle": "subtitle"},
        "list_row": {"title": "List row", "trailing": "›"},
        "product_card": {"title": "Product card", "price": "€1.00", "badge": "new"},
        "key_value": {"label": "Key", "value": "Value"},
        "empty_state": {"title": "Empty state", "message": "Nothing here"},
        "divider": {},
        "spacer": {"height": 8},
    }
    widgets = []
    for kind in types:
        widget = {"id": "gallery." + kind, "type": kind, "content": samples.get(kind, {})}
        if kind in ("accordion", "carousel"):
            widget["children"] = [{"id": kind + ".child", "type": "text", "content": {"text": "child"}}]
        widgets.append(widget)
    page = {"id": "gallery", "title": "Widget gallery", "sections": [{"id": "all", "widgets": widgets}]}
    return {"schemaVersion": 1, "kind": "page", "page": page}


def har_from_devtools(driver, base):
    """A HAR 1.2 log of the /v1/ requests in Chromium's performance log (DevTools Network events), with the bodies
    read through the DevTools protocol while the page is still open."""
    requests, responses, finished = {}, {}, set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.requestWillBeSent":
            requests[params["requestId"]] = params
        elif message["method"] == "Network.responseReceived":
            responses[params["requestId"]] = params
        elif message["method"] == "Network.loadingFinished":
            finished.add(params["requestId"])
    entries = []
    for request_id, sent in requests.items():
        request = sent["request"]
        if not request["url"].startswith(base + "/v1/") or request_id not in responses or request_id not in finished:
            continue
        response = responses[request_id]["response"]
        body = driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": request_id})
        parsed = urllib.parse.urlsplit(request["url"])
        har_request = {
            "method": request["method"], "url": request["url"], "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [{"name": k, "value": v} for k, v in request.get("headers", {}).items()],
            "queryString": [{"name": k, "value": v} for k, v in urllib.parse.parse_qsl(parsed.query)],
            "headersSize": -1, "bodySize": len(request.get("postData", "").encode()),
        }
        if request.get("postData") is not None:
            har_request["postData"] = {"mimeType": "application/json", "text": request["postData"]}
        text = body["body"]
        entries.append({
            "startedDateTime": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(sent["wallTime"])),
            "time": 0, "request": har_request,
            "response": {
                "status": response["status"], "statusText": response.get("statusText", ""), "httpVersion": "HTTP/1.1",
                "cookies": [], "headers": [{"name": k, "value": v} for k, v in response.get("headers", {}).items()],
                "content": dict({"size": len(text), "mimeType": response.get("mimeType", ""), "text": text},
                                **({"encoding": "base64"} if body.get("base64Encoded") else {})),
                "redirectURL": "", "headersSize": -1, "bodySize": -1,
            },
            "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0},
        })
    return {"log": {"version": "1.2", "creator": {"name": "chromium-devtools", "version": "1"}, "entries": entries}}


def har_problems(har):
    """What a HAR 1.2 log lacks of the specification's required fields (http://www.softwareishard.com/blog/har-12-spec/)."""
    problems = []
    log = har.get("log", {})
    for field in ("version", "creator", "entries"):
        if field not in log:
            problems.append("log." + field)
    for index, entry in enumerate(log.get("entries", [])):
        for field in ("startedDateTime", "time", "request", "response", "cache", "timings"):
            if field not in entry:
                problems.append("entries[%d].%s" % (index, field))
        for field in ("method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"):
            if field not in entry.get("request", {}):
                problems.append("entries[%d].request.%s" % (index, field))
        for field in ("status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL",
                      "headersSize", "bodySize"):
            if field not in entry.get("response", {}):
                problems.append("entries[%d].response.%s" % (index, field))
        for field in ("size", "mimeType"):
            if field not in entry.get("response", {}).get("content", {}):
                problems.append("entries[%d].response.content.%s" % (index, field))
        for field in ("send", "wait", "receive"):
            if field not in entry.get("timings", {}):
                problems.append("entries[%d].timings.%s" % (index, field))
    return problems


def har_checks(driver, wait, base, expected_sections):
    driver.get_log("performance")  # drop what earlier sections logged
    driver.get(base + "/__preview?page=feed&live=0")
    wait.until(lambda d: d.execute_script("return window.flowPreview && window.flowPreview.ready"))
    for _ in range(200):
        if driver.execute_script("return document.querySelector('#screen .end') !== null"):
            break
        driver.execute_script("const s = document.getElementById('screen'); s.scrollTop = s.scrollHeight;")
        time.sleep(0.05)
    har = har_from_devtools(driver, base)
    # A second page, in a session of its own: the cart and one stepper action (bodies are read before leaving).
    driver.get(base + "/__preview?page=cart&live=0&session=har-capture")
    wait.until(lambda d: d.execute_script("return window.flowPreview && window.flowPreview.ready"))
    driver.find_element(By.CSS_SELECTOR, "[data-widget-id='qty.p-1042'] button.plus").click()
    wait.until(lambda d: d.execute_script(
        "return document.getElementById('requests').textContent.includes('/v1/actions/cart.setQuantity → 200')"))
    har["log"]["entries"] += har_from_devtools(driver, base)["log"]["entries"]
    check(any(e["request"]["method"] == "POST" and "/v1/actions/cart.setQuantity" in e["request"]["url"]
              and "postData" in e["request"] for e in har["log"]["entries"]),
          "HAR: the capture holds the cart's stepper action with its body")
    chunks = [e for e in har["log"]["entries"] if "/v1/pages/feed" in e["request"]["url"]]
    check(len(chunks) > 1, "HAR: Chromium's capture holds feed's first load and its next chunks (%d)" % len(chunks))
    problems = har_problems(har)
    check(problems == [], "HAR: the capture has HAR 1.2's required fields (missing: %s)" % problems[:5])
    directory = tempfile.mkdtemp(prefix="flow-bff-har-")
    try:
        capture = os.path.join(directory, "capture.har")
        with open(capture, "w") as file:
            json.dump(har, file)
        shutil.copy(capture, os.path.join(ARTIFACTS, "chromium-capture.har"))
        imported = subprocess.run([EXECUTABLE, "import", "har", capture, "--pages", os.path.join(directory, "pages")],
                                  capture_output=True, text=True, timeout=60)
        check(imported.returncode == 0, "HAR: flow-bff import har exits 0: %s %s" % (imported.stdout[-300:],
                                                                                      imported.stderr[-300:]))
        checked = subprocess.run([EXECUTABLE, "check", os.path.join(directory, "pages")], capture_output=True,
                                 text=True, timeout=60)
        check(checked.returncode == 0, "HAR: flow-bff check accepts the imported folder: %s" % checked.stderr[-300:])
        with open(os.path.join(directory, "pages", "feed.json")) as file:
            feed = json.load(file)
        check(len(feed["page"]["sections"]) == expected_sections,
              "HAR: the imported feed has all %d sections (%d)" % (expected_sections, len(feed["page"]["sections"])))
        with open(os.path.join(directory, "pages", "cart.json")) as file:
            cart = json.load(file)
        check("cart.setQuantity" in cart.get("server", {}).get("actions", {}),
              "HAR: the stepper's answer is recorded in cart.json's server.actions")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def upstream_page(page_id, title, widget_ids):
    widgets = [{"id": wid, "type": "text", "content": {"text": title + " " + wid}} for wid in widget_ids]
    return {"schemaVersion": 1, "kind": "page",
            "page": {"id": page_id, "title": title, "sections": [{"id": "s0", "widgets": widgets}],
                     "pagination": {"hasMore": False}}}


class Upstream(BaseHTTPRequestHandler):
    """A backend that speaks the contract, mostly: `broken` has a duplicate widget id."""
    pages = {
        "/v1/pages/upstreamonly": upstream_page("upstreamonly", "Only upstream", ["a", "b"]),
        "/v1/pages/broken": upstream_page("broken", "Broken upstream", ["twice", "twice"]),
        "/v1/pages/home": upstream_page("home", "Upstream home", ["hello"]),
    }

    def do_GET(self):
        page = self.pages.get(self.path.split("?")[0])
        body = json.dumps(page if page else {"type": "about:blank", "title": "Not found", "status": 404,
                                              "detail": "No such page.", "code": "page_not_found"}).encode()
        self.send_response(200 if page else 404)
        self.send_header("Content-Type", "application/json" if page else "application/problem+json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Request-ID", self.headers.get("X-Request-ID", ""))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def start_server(arguments):
    """Starts flow-bff with `arguments`; returns (process, base URL)."""
    server = subprocess.Popen([EXECUTABLE, "serve"] + arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    base = None
    deadline = time.time() + 30
    while base is None and time.time() < deadline:
        line = server.stdout.readline()
        if not line:
            break
        match = re.search(r"serving .* on (http://127\.0\.0\.1:\d+)", line)
        if match:
            base = match.group(1)
    if base is None:
        server.kill()
        raise SystemExit("flow-bff did not print its URL")
    # Drain the rest of the server's output so it never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    return server, base


def proxy_checks(driver, wait, pages):
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    server, base = start_server(["--config", "config/default.json", "--pages", pages, "--port", "0",
                                 "--upstream", "http://127.0.0.1:%d" % upstream.server_port])
    try:
        def open_page(query):
            driver.get(base + "/__preview" + query)
            wait.until(lambda d: d.execute_script("return window.flowPreview && window.flowPreview.ready"))

        driver.get_log("browser")
        open_page("?page=upstreamonly")
        title = driver.execute_script("return document.querySelector('#screen .page-title')?.textContent")
        check(title == "Only upstream", "proxy: an upstream-only page renders in the preview (%r)" % title)
        wait.until(lambda d: "from upstream" in d.execute_script(
            "return document.getElementById('requests').textContent"))
        check(driver.execute_script("return window.flowPreview.errors") == [],
              "proxy: zero JavaScript errors on an upstream page")
        driver.save_screenshot(os.path.join(ARTIFACTS, "proxy-upstream-page.png"))
        open_page("?page=broken")
        panel = driver.execute_script("return document.getElementById('diagnostics').textContent")
        check("duplicate_id" in panel and "/page/sections/0/widgets/1/id" in panel and "upstream answer" in panel,
              "proxy: the upstream's duplicate id is in the diagnostics panel: %r" % panel[:200])
        driver.save_screenshot(os.path.join(ARTIFACTS, "proxy-contract-violation.png"))
        open_page("?page=home")
        source = driver.execute_script("return document.querySelector('#controls select[name=source]')?.value")
        check(source == "local", "proxy: the source control shows home's local file (%r)" % source)
        driver.execute_script("""
            const select = document.querySelector('#controls select[name=source]');
            select.value = 'upstream'; select.dispatchEvent(new Event('change'));""")
        wait.until(lambda d: d.execute_script(
            "return window.flowPreview && window.flowPreview.ready"
            " && document.querySelector('#screen .page-title')?.textContent === 'Upstream home'"))
        source = driver.execute_script("return document.querySelector('#controls select[name=source]')?.value")
        check(source == "upstream", "proxy: switched to the upstream, the preview shows its home (%r)" % source)
        driver.save_screenshot(os.path.join(ARTIFACTS, "proxy-switched-to-upstream.png"))
        driver.execute_script("""
            const select = document.querySelector('#controls select[name=source]');
            select.value = 'local'; select.dispatchEvent(new Event('change'));""")
        wait.until(lambda d: d.execute_script(
            "return window.flowPreview && window.flowPreview.ready"
            " && document.querySelector('#screen .page-title')?.textContent !== 'Upstream home'"
            " && document.querySelector('#controls select[name=source]')?.value === 'local'"))
        check(True, "proxy: switched back to the local file")
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        upstream.shutdown()


def main():
    pages = tempfile.mkdtemp(prefix="flow-bff-preview-")
    shutil.copytree("pages", pages, dirs_exist_ok=True)
    catalog_types = None
    server, base = start_server(["--config", "config/default.json", "--pages", pages, "--port", "0"])
    driver = None
    try:
        catalog = json.load(urllib.request.urlopen(base + "/__preview/catalog.json", timeout=5))
        catalog_types = catalog["widgetTypes"]
        with open(os.path.join(pages, "gallery.json"), "w") as gallery:
            # An x- type: the server accepts it as custom (a typo'd type is refused at load, docs/check.md), and
            # the preview, like an app that does not render it, shows the unknown-type placeholder.
            json.dump(gallery_page(catalog_types + ["x-future_widget"]), gallery)

        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1300,1000", "--no-proxy-server",
                         # DNS rebinding, simulated: the attacker's name resolves to this machine.
                         "--host-resolver-rules=MAP evil.example 127.0.0.1"]:
            options.add_argument(argument)
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        # performance: the DevTools network events the HAR capture (section 9) is built from.
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
        driver = webdriver.Chrome(options=options, service=service)
        driver.set_page_load_timeout(TIMEOUT)
        wait = WebDriverWait(driver, TIMEOUT, poll_frequency=0.05)
        os.makedirs(ARTIFACTS, exist_ok=True)

        def open_page(query):
            driver.get(base + "/__preview" + query)
            wait.until(lambda d: d.execute_script("return window.flowPreview && window.flowPreview.ready"))

        def js_errors():
            errors = driver.execute_script("return window.flowPreview.errors")
            severe = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                      and "img.example.com" not in entry["message"]]
            return errors + severe

        def visible_types():
            return set(driver.execute_script(
                "return [...document.querySelectorAll('#screen [data-type]')]"
                ".filter(n => n.offsetParent !== null).map(n => n.dataset.type)"))

        # The gallery is picked up by the watcher; wait for it in the catalog.
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            ids = [p["id"] for p in json.load(urllib.request.urlopen(base + "/__preview/catalog.json"))["pages"]]
            if "gallery" in ids:
                break
            time.sleep(0.1)
        check("gallery" in ids, "the watcher added gallery.json")

        # 1. The index, then every page: zero JavaScript errors, a screenshot each.
        open_page("")
        links = driver.execute_script("return [...document.querySelectorAll('#index a')].map(a => a.textContent)")
        check(set(ids) <= set(links), "the index lists every page: %s" % ids)
        driver.save_screenshot(os.path.join(ARTIFACTS, "index.png"))
        seen_types = set()
        samples = {p["id"]: (p.get("parameters") or [{}])[0]
                   for p in json.load(urllib.request.urlopen(base + "/__preview/catalog.json"))["pages"]}
        check(samples.get("order") == {"orderID": "o-1001"}, "a page per data item comes with sample parameters")
        for page_id in ids:
            # A page made per data item (order) answers only with its parameter: opened with the first sample.
            open_page("?page=" + page_id + "".join(
                "&p." + name + "=" + urllib.parse.quote(value) for name, value in samples.get(page_id, {}).items()))
            problem = driver.execute_script("return document.querySelector('#screen .problem')?.textContent")
            check(problem is None, "%s renders (problem: %s)" % (page_id, problem))
            errors = js_errors()
            check(errors == [], "%s: zero JavaScript errors %s" % (page_id, errors))
            seen_types |= visible_types()
            driver.save_screenshot(os.path.join(ARTIFACTS, page_id + ".png"))
        check(set(catalog_types) <= seen_types, "every catalog widget type is visible: missing %s"
              % sorted(set(catalog_types) - seen_types))
        open_page("?page=gallery")
        placeholders = driver.execute_script(
            "return [...document.querySelectorAll('#screen .placeholder')].map(n => n.textContent)")
        check(any("x-future_widget" in text for text in placeholders),
              "an unknown type gets the placeholder: %s" % placeholders)
        check(driver.execute_script("return document.getElementById('diagnostics').textContent")
              .find("unknown_widget_type") >= 0, "the diagnostics panel names unknown_widget_type")

        # 2. Infinite scroll reaches the end of feed; the sections equal the server's, chunk by chunk.
        expected = 0
        envelope = json.load(urllib.request.urlopen(base + "/v1/pages/feed"))
        expected += len(envelope["page"]["sections"])
        pagination = envelope["page"].get("pagination") or {}
        chunks = 1
        while pagination.get("hasMore"):
            envelope = json.load(urllib.request.urlopen(
                base + "/v1/pages/feed/next?postback=" + urllib.parse.quote(pagination["postback"])))
            expected += len(envelope["sections"])
            pagination = envelope.get("pagination") or {}
            chunks += 1
        open_page("?page=feed&profile=current")
        start = time.time()
        for _ in range(200):
            if driver.execute_script("return document.querySelector('#screen .end') !== null"):
                break
            driver.execute_script("const s = document.getElementById('screen'); s.scrollTop = s.scrollHeight;")
            time.sleep(0.05)
        shown = driver.execute_script("return document.querySelectorAll('#screen .section').length")
        check(shown == expected and chunks > 1,
              "feed scrolled to its end: %d of %d sections in %d chunks, %.1f s" % (shown, expected, chunks,
                                                                                   time.time() - start))
        check(js_errors() == [], "feed: zero JavaScript errors after scrolling")
        driver.save_screenshot(os.path.join(ARTIFACTS, "feed-end.png"))

        # 3. The cart stepper: an api round trip whose mutations update the totals.
        open_page("?page=cart&session=preview-test")

        def text_of(widget_id):
            return driver.execute_script(
                "return document.querySelector(`[data-widget-id='${arguments[0]}']`)?.textContent", widget_id)

        before = text_of("totals.total")
        driver.find_element(By.CSS_SELECTOR, "[data-widget-id='qty.p-1042'] button.plus").click()
        wait.until(lambda d: text_of("totals.total") != before)
        check("109.10" in text_of("totals.total"), "cart stepper: total %r → %r" % (before, text_of("totals.total")))
        check("3" in text_of("qty.p-1042"), "the stepper shows its new value: %r" % text_of("qty.p-1042"))
        wait.until(lambda d: "/v1/actions/cart.setQuantity" in
                   d.execute_script("return document.getElementById('requests').textContent"))
        check(True, "the requests panel shows POST /v1/actions/cart.setQuantity")
        driver.save_screenshot(os.path.join(ARTIFACTS, "cart-after-stepper.png"))

        # A tap that opens a bottom sheet loads the other page through the same routes.
        driver.find_element(By.CSS_SELECTOR, "[data-widget-id='line.p-3307']").click()
        wait.until(lambda d: d.execute_script(
            "return !document.getElementById('sheet').hidden && !!document.querySelector('#sheet .page-title')"))
        sheet_title = driver.execute_script("return document.querySelector('#sheet .page-title').textContent")
        check(bool(sheet_title), "the list row opened the product page in a bottom sheet: %r" % sheet_title)
        # The sheet has a dimmed backdrop over the whole frame and a grab handle at its top.
        sheet = driver.execute_script("""
            const rect = (n) => { const r = n.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
            const backdrop = document.getElementById('backdrop'), handle = document.querySelector('#sheet .handle');
            return {backdrop: !backdrop.hidden && rect(backdrop), screen: rect(document.getElementById('screen')),
                    color: getComputedStyle(backdrop).backgroundColor,
                    handle: !!handle && handle.offsetWidth > 0 && rect(handle),
                    sheet: rect(document.getElementById('sheet'))};""")
        check(sheet["backdrop"] == sheet["screen"] and sheet["color"] not in ("rgba(0, 0, 0, 0)", "transparent"),
              "the sheet has a dimmed backdrop over the frame: %r" % sheet)
        check(bool(sheet["handle"]) and sheet["sheet"][1] <= sheet["handle"][1] <= sheet["sheet"][1] + 20,
              "the sheet has a grab handle at its top: %r" % sheet["handle"])
        driver.save_screenshot(os.path.join(ARTIFACTS, "cart-bottom-sheet.png"))
        driver.find_element(By.ID, "phone").screenshot(os.path.join(ARTIFACTS, "sheet-open.png"))
        # A click on the backdrop (above the sheet) closes it.
        backdrop = driver.find_element(By.ID, "backdrop")
        ActionChains(driver).move_to_element_with_offset(backdrop, 0, -backdrop.size["height"] // 2 + 30).click().perform()
        wait.until(lambda d: d.execute_script(
            "return document.getElementById('sheet').hidden && document.getElementById('backdrop').hidden"))
        check(True, "a click on the backdrop closes the sheet")

        # The footer (the cart's checkout button) stays pinned to the bottom of the frame while the page scrolls,
        # and at the end of the page nothing is hidden behind it.
        open_page("?page=cart&width=375")
        pinned = driver.execute_script("""
            const screen = document.getElementById('screen'), footer = document.querySelector('#screen .page-footer');
            const result = [];
            for (const top of [0, 200, screen.scrollHeight]) {
              screen.scrollTop = top;
              result.push({scrollTop: screen.scrollTop, footer: footer.getBoundingClientRect().bottom,
                           frame: screen.getBoundingClientRect().bottom,
                           before: footer.previousElementSibling.getBoundingClientRect().bottom,
                           footerTop: footer.getBoundingClientRect().top});
            }
            screen.scrollTop = 200;
            return {rows: result, checkout: !!footer.querySelector("[data-widget-id='cart.checkout']")};""")
        rows = pinned["rows"]
        check(pinned["checkout"] and len({row["scrollTop"] for row in rows}) == 3,
              "the cart scrolls and its footer holds the checkout button: %r" % rows)
        check(all(abs(row["footer"] - row["frame"]) < 1 for row in rows),
              "the footer's bottom is the frame's bottom at every scroll position: %r" % rows)
        check(rows[-1]["before"] <= rows[-1]["footerTop"] + 0.5,
              "scrolled to the end, the content ends above the footer: %r" % rows[-1])
        driver.save_screenshot(os.path.join(ARTIFACTS, "cart-footer-pinned.png"))
        driver.find_element(By.ID, "phone").screenshot(os.path.join(ARTIFACTS, "footer-pinned.png"))

        # Contrast: every button's text against what is behind it (WCAG AA, 4.5:1), light and dark; in dark mode
        # the browser's own parts (the carousel's scrollbar) are dark too. theme=auto follows the system.
        contrast_script = """
            const luminance = (color) => {
              const [r, g, b] = color.match(/[\d.]+/g).slice(0, 3).map((v) => {
                v = Number(v) / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
              return 0.2126 * r + 0.7152 * g + 0.0722 * b;
            };
            const behind = (node) => {
              for (; node; node = node.parentElement) {
                const parts = getComputedStyle(node).backgroundColor.match(/[\d.]+/g);
                if (parts && (parts.length < 4 || Number(parts[3]) > 0.5)) return getComputedStyle(node).backgroundColor;
              }
              return 'rgb(255, 255, 255)';
            };
            return [...document.querySelectorAll('#screen button.w-button')].map((b) => {
              const [l1, l2] = [luminance(getComputedStyle(b).color), luminance(behind(b))];
              const style = ['secondary', 'destructive'].find((c) => b.classList.contains(c)) || 'primary';
              return [style, b.textContent, (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05)];
            });"""
        for theme in ("light", "dark"):
            ratios = []
            for page_id in ("home", "product", "cart"):
                open_page("?page=%s&theme=%s" % (page_id, theme))
                ratios += driver.execute_script(contrast_script)
            styles = {style for style, _, _ in ratios}
            low = [r for r in ratios if r[2] < 4.5]
            check(len(styles) >= 3 and not low, "%s: %d buttons (%s), each with text contrast ≥ 4.5:1: low %r"
                  % (theme, len(ratios), sorted(styles), low))
        open_page("?page=home&theme=dark")
        track = driver.execute_script("""
            const t = document.querySelector('#screen .w-carousel .track'), s = getComputedStyle(t);
            return [s.colorScheme, s.scrollbarColor, t.scrollWidth > t.clientWidth];""")
        check(track[0] == "dark" and "255, 255, 255" not in track[1] and track[2],
              "dark: the carousel scrolls with a dark scrollbar: %r" % track)
        driver.save_screenshot(os.path.join(ARTIFACTS, "home-dark.png"))
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        open_page("?page=home")
        check(driver.execute_script("return document.body.classList.contains('dark')"),
              "theme=auto (the default) follows a dark system")
        driver.get(base + "/")
        dark_index = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        driver.save_screenshot(os.path.join(ARTIFACTS, "root-index-dark.png"))
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
        driver.get(base + "/")
        light_index = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        preview_links = driver.execute_script("return document.querySelectorAll('a[href^=\"/__preview?page=\"]').length")
        severe = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check(dark_index != light_index and preview_links >= len(ids) and not severe,
              "/ is styled, light (%s) and dark (%s), links every preview (%d), no policy violation %r"
              % (light_index, dark_index, preview_links, severe))
        driver.save_screenshot(os.path.join(ARTIFACTS, "root-index.png"))

        # The requests panel: without a session only this preview's requests (another client's are left out),
        # each with the size of its answer; with one, the session's other clients too (from the journal).
        def other_client(path, session=None):
            headers = {"X-Flow-Session": session} if session else {}
            with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers), timeout=5) as r:
                return len(r.read())

        def panel():
            return driver.execute_script(
                "return document.getElementById('requests').parentElement.innerText")

        def journal_read_past_newest():
            # Waits until the panel has polled the journal past its newest entry (so a left-out request had
            # its chance to show), instead of sleeping.
            newest = json.load(urllib.request.urlopen(base + "/__admin/journal?limit=1"))["entries"][-1]["sequence"]
            wait.until(lambda d: int(d.execute_script(
                "return document.getElementById('requests').dataset.journalAfter || 0")) >= newest)

        open_page("?page=cart")
        other_client("/v1/pages/home")
        journal_read_past_newest()
        cart_bytes = other_client("/v1/pages/cart")
        text = panel()
        check("GET /v1/pages/cart → 200 · {:,} B".format(cart_bytes) in text and "/v1/pages/home" not in text
              and "body bytes" not in text and "own requests" in text,
              "no session: only the preview's own requests, with the answer's size: %r" % text)
        open_page("?page=cart&session=panel-test")
        # Outside the session first: had the filter let it through, it would show no later than the session's request.
        other_client("/v1/pages/checkout")
        home_bytes = other_client("/v1/pages/home", "panel-test")
        wait.until(lambda d: "/v1/pages/home" in panel())
        text = panel()
        check("GET /v1/pages/home → 200 · other client, {:,} B".format(home_bytes) in text
              and "/v1/pages/checkout" not in text
              and "Session panel-test" in text and "/v1/pages/cart → 200 · {:,} B".format(cart_bytes) in text,
              "session: the preview's requests and the session's other clients, no one else's: %r" % text)
        driver.save_screenshot(os.path.join(ARTIFACTS, "requests-session.png"))
        check(js_errors() == [], "zero JavaScript errors through the sheet, footer, theme and panel checks")

        # The legacy profile (no stepper): the envelope's degradations are listed; dark theme, narrow phone.
        open_page("?page=cart&profile=legacy&theme=dark&width=320")
        panel = driver.execute_script("return document.getElementById('diagnostics').textContent")
        check("widget_replaced" in panel or "widget_generalized" in panel or "widget_dropped" in panel,
              "legacy client: degradations listed: %r" % panel[:200])
        check(visible_types().isdisjoint({"stepper"}), "legacy client: no stepper drawn")
        check(js_errors() == [], "legacy/dark: zero JavaScript errors")
        driver.save_screenshot(os.path.join(ARTIFACTS, "cart-legacy-dark.png"))

        # 4. Live reload: an edited page file shows up without a page load; scroll and widget state stay.
        open_page("?page=cart&width=375")
        driver.find_element(By.CSS_SELECTOR, "[data-widget-id='qty.p-3307'] button.plus").click()
        wait.until(lambda d: "2" in (text_of("qty.p-3307") or ""))
        driver.execute_script("document.getElementById('screen').scrollTop = 120; window.notReloaded = true;")
        path = os.path.join(pages, "cart.json")
        original = open(path).read()
        edited = original.replace('"title": "Cart"', '"title": "Cart (edited)"', 1)
        check(edited != original, "the edit changes cart.json")
        edit_time = time.time()
        with open(path, "w") as file:
            file.write(edited)
        wait.until(lambda d: "Cart (edited)" in d.execute_script(
            "return document.querySelector('#screen .page-title')?.textContent || ''"))
        latency = time.time() - edit_time
        check(latency < 1.0, "the edit appeared within a second: %.2f s" % latency)
        check(driver.execute_script("return window.notReloaded === true"), "no page load happened")
        scroll = driver.execute_script("return document.getElementById('screen').scrollTop")
        check(scroll == 120, "scroll position kept: %s" % scroll)
        check("2" in text_of("qty.p-3307"), "stepper state kept: %r" % text_of("qty.p-3307"))
        driver.save_screenshot(os.path.join(ARTIFACTS, "cart-live-edit.png"))

        # 5. A broken edit: the error is shown in place and the last good page stays.
        with open(path, "w") as file:
            file.write(edited.replace('"sections"', '"sections" oops', 1))
        wait.until(lambda d: d.execute_script("return !document.getElementById('reload-error').hidden"))
        message = driver.execute_script("return document.getElementById('reload-error').textContent")
        check(message.startswith("cart.json: /: invalid_json:") and "\n" not in message,
              "only the broken file's error is shown, at its path: %r" % message[:160])
        check("Cart (edited)" in driver.execute_script(
            "return document.querySelector('#screen .page-title').textContent"), "the last good page stays")
        driver.save_screenshot(os.path.join(ARTIFACTS, "cart-broken-edit.png"))
        with open(path, "w") as file:
            file.write(original)
        wait.until(lambda d: d.execute_script("return document.getElementById('reload-error').hidden"))
        check(True, "fixing the file clears the error")
        check(js_errors() == [], "zero JavaScript errors through the edits")

        # 6. The preview's own headers: a policy without 'unsafe-inline' (the checks above ran under it: a
        #    violation is a SEVERE console entry), nosniff on the page and its scripts.
        head = urllib.request.urlopen(base + "/__preview", timeout=5).headers
        policy = head.get("Content-Security-Policy") or ""
        check("script-src 'self'" in policy and "unsafe-inline" not in policy,
              "the preview has a Content-Security-Policy without 'unsafe-inline': %r" % policy)
        check(head.get("X-Content-Type-Options") == "nosniff", "the preview page is nosniff")
        script = urllib.request.urlopen(base + "/__preview/preview.js", timeout=5).headers
        check(script.get("X-Content-Type-Options") == "nosniff", "its scripts are nosniff")

        # 7. DNS rebinding and cross-site requests against the admin API, in Chromium.
        def admin(method, path, body=None):
            request = urllib.request.Request(base + path, method=method, data=body,
                                             headers={"X-Flow-Admin": "1", "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    return response.status
            except urllib.error.HTTPError as error:
                return error.code

        check(admin("PUT", "/__admin/sessions/rebind-victim", b'{"scenarios": {}}') == 200, "a session to protect")
        port = urllib.parse.urlsplit(base).port
        evil = "http://evil.example:%d" % port
        # A document of the attacker's origin (any public route answers every Host; here a JSON page) runs the
        # attacker's script: for the browser it is same-origin with /__admin, as after a real rebinding.
        driver.get(evil + "/v1/pages/home")
        fetch_script = """
            const [path, init, done] = arguments;
            fetch(path, init).then(async r => done({status: r.status, type: r.headers.get('content-type'),
                                                     body: await r.text()}))
                             .catch(e => done({error: String(e)}));"""
        read = driver.execute_async_script(fetch_script, "/__admin/journal", {})
        check(read.get("status") == 403 and "problem+json" in (read.get("type") or "")
              and '"host_not_allowed"' in read.get("body", "") and "rebind-victim" not in read.get("body", ""),
              "rebinding: GET /__admin/journal refused with host_not_allowed: %r" % read)
        reset = driver.execute_async_script(
            fetch_script, "/__admin/reset", {"method": "POST", "body": "x", "headers": {"Content-Type": "text/plain"}})
        check(reset.get("status") == 403 and '"host_not_allowed"' in reset.get("body", ""),
              "rebinding: POST /__admin/reset refused with host_not_allowed: %r" % reset)
        preview = driver.execute_async_script(fetch_script, "/__preview", {})
        check(preview.get("status") == 403, "rebinding: the preview is refused too: %r" % preview.get("status"))
        # A cross-site simple POST, the way a page on any site can send one: an HTML form, text/plain.
        driver.execute_script("""
            const form = document.createElement('form');
            form.method = 'POST'; form.enctype = 'text/plain'; form.action = arguments[0];
            const field = document.createElement('input'); field.name = 'x'; field.value = 'y';
            form.append(field); document.body.append(form); form.submit();""", base + "/__admin/reset")
        wait.until(lambda d: d.current_url.startswith(base + "/__admin/reset"))
        answer = driver.find_element(By.TAG_NAME, "body").text
        check('"cross_site_refused"' in answer, "cross-site form POST /__admin/reset refused: %r" % answer[:160])
        driver.get(evil + "/v1/pages/home")
        blind = driver.execute_async_script(
            fetch_script, base + "/__admin/reset",
            {"method": "POST", "mode": "no-cors", "body": "x", "headers": {"Content-Type": "text/plain"}})
        check("error" not in blind, "a no-cors POST was sent: %r" % blind)
        check(admin("GET", "/__admin/sessions/rebind-victim") == 200, "nothing was reset")
        # The real preview, at 127.0.0.1, still works and still reads the journal (the refused requests above
        # logged their 403s to the console: drop them first).
        driver.get_log("browser")
        open_page("?page=cart&session=rebind-victim")
        wait.until(lambda d: "/v1/pages/cart" in d.execute_script(
            "return document.getElementById('requests').textContent"))
        check(js_errors() == [], "the preview at 127.0.0.1 still works, journal included, zero JavaScript errors")
        driver.save_screenshot(os.path.join(ARTIFACTS, "after-rebinding.png"))

        # 8. live=0: no reload stream and no journal polling, so a plain headless Chromium capture finishes
        # (the stream would keep it waiting forever) and shows the page.
        shot = os.path.join(ARTIFACTS, "cart-live0-cli.png")
        url = base + "/__preview?page=cart&live=0"
        chromium = shutil.which("chromium") or "/usr/bin/chromium"
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-proxy-server"]
        started = time.time()
        try:
            subprocess.run([chromium] + flags + ["--screenshot=" + shot, url], capture_output=True, timeout=10)
            finished = True
        except subprocess.TimeoutExpired:
            finished = False
        check(finished and os.path.exists(shot) and os.path.getsize(shot) > 10_000,
              "chromium --headless --screenshot of %s finished in %.1f s" % (url, time.time() - started))
        try:
            dom = subprocess.run([chromium] + flags + ["--dump-dom", "--virtual-time-budget=5000", url],
                                 capture_output=True, text=True, timeout=10).stdout
        except subprocess.TimeoutExpired:
            dom = ""
        check('data-widget-id="qty.p-1042"' in dom, "chromium --headless --dump-dom of the cart with live=0 shows the cart")

        # 9. A HAR captured by Chromium's DevTools imports to page files.
        har_checks(driver, wait, base, expected)

        # 10. The proxy in the preview.
        proxy_checks(driver, wait, pages)
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(pages, ignore_errors=True)
    print("%d failures; screenshots in %s" % (len(failures), ARTIFACTS))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
