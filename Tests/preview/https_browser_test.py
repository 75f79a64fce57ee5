"""Headless Chromium over HTTPS with flow-bff's development CA (docs/mock.md, "HTTPS for devices").

Starts the built flow-bff with `serve --dev --tls-port 0` on a copy of pages/ and a fresh CA directory, then runs
two Chromium sessions, each with a HOME of its own (Chromium on Linux trusts the NSS database in
$HOME/.pki/nssdb):
- one whose database trusts the development CA (added with NSS's certutil, as docs/mock.md tells a developer):
  the preview renders over HTTPS with no JavaScript error in a secure context; from the page, fetch() loads feed,
  follows its postbacks to the end (every section once) and posts the cart's stepper action;
- one with an empty database: navigation ends on Chromium's certificate error (NET::ERR_CERT_AUTHORITY_INVALID)
  and fetch() is refused.
Screenshots go to the artifacts directory (argv[2]).

Usage: https_browser_test.py FLOW_BFF_EXECUTABLE ARTIFACTS_DIR
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

EXECUTABLE, ARTIFACTS = sys.argv[1], sys.argv[2]
TIMEOUT = 30
failures = []


def check(condition, message):
    print(("ok     " if condition else "FAILED ") + message, flush=True)
    if not condition:
        failures.append(message)


def start_server(pages, ca_directory):
    """flow-bff in mock mode on free HTTP and HTTPS ports; returns (process, https base URL)."""
    server = subprocess.Popen(
        [EXECUTABLE, "serve", "--config", "config/default.json", "--pages", pages, "--port", "0", "--tls-port", "0",
         "--ca-dir", ca_directory], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = None
    deadline = time.time() + 30
    while base is None and time.time() < deadline:
        line = server.stdout.readline()
        if not line:
            break
        match = re.search(r"^https: (https://127\.0\.0\.1:\d+)", line)
        if match:
            base = match.group(1)
    if base is None:
        server.kill()
        raise SystemExit("flow-bff did not print its https URL")
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    return server, base


def browser(home):
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1300,1000", "--no-proxy-server"]:
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    environment = dict(os.environ, HOME=home)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver", env=environment)
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(TIMEOUT)
    driver.set_script_timeout(TIMEOUT)
    return driver


def nss_database(home, ca_file=None):
    database = os.path.join(home, ".pki", "nssdb")
    os.makedirs(database)
    subprocess.run(["certutil", "-N", "-d", "sql:" + database, "--empty-password"], check=True)
    if ca_file:
        subprocess.run(["certutil", "-A", "-d", "sql:" + database, "-t", "C,,", "-n", "flow-bff development CA",
                        "-i", ca_file], check=True)


CRAWL = """
const done = arguments[arguments.length - 1];
(async () => {
  const first = await (await fetch('/v1/pages/feed')).json();
  let ids = first.page.sections.map(s => s.id);
  let pagination = first.page.pagination;
  let chunks = 1;
  while (pagination && pagination.hasMore && chunks < 100) {
    const next = await (await fetch('/v1/pages/feed/next?postback=' + encodeURIComponent(pagination.postback))).json();
    ids = ids.concat(next.sections.map(s => s.id));
    pagination = next.pagination;
    chunks += 1;
  }
  const action = await fetch('/v1/actions/cart.setQuantity', {method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({pageID: 'cart', widgetID: 'qty.p-1042', event: 'change', value: 3,
                          payload: {productID: 'p-1042'}})});
  const answer = await action.json();
  done({sections: ids.length, unique: new Set(ids).size, chunks, actionStatus: action.status,
        mutations: (answer.mutations || []).length, secure: window.isSecureContext, protocol: location.protocol});
})().catch(error => done({error: String(error)}));
"""


def main():
    work = tempfile.mkdtemp(prefix="flow-bff-https-")
    pages = os.path.join(work, "pages")
    shutil.copytree("pages", pages)
    ca_directory = os.path.join(work, "ca")
    server, base = start_server(pages, ca_directory)
    drivers = []
    os.makedirs(ARTIFACTS, exist_ok=True)
    try:
        trusting_home = os.path.join(work, "home-trusting")
        nss_database(trusting_home, os.path.join(ca_directory, "ca.pem"))
        driver = browser(trusting_home)
        drivers.append(driver)
        driver.get(base + "/__preview?page=feed")
        WebDriverWait(driver, TIMEOUT, poll_frequency=0.05).until(
            lambda d: d.execute_script("return window.flowPreview && window.flowPreview.ready"))
        driver.save_screenshot(os.path.join(ARTIFACTS, "https-preview-feed.png"))
        errors = driver.execute_script("return window.flowPreview.errors") + [
            entry["message"] for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE" and "img.example.com" not in entry["message"]]
        check(not errors, "the preview renders over HTTPS with no JavaScript error %s" % errors)
        result = driver.execute_async_script(CRAWL)
        check("error" not in result, "fetch over HTTPS works: %s" % result.get("error", "no error"))
        check(result.get("secure") is True and result.get("protocol") == "https:", "a secure context (%s)" % result)
        check(result.get("sections") == 48 and result.get("unique") == 48 and result.get("chunks", 0) > 1,
              "feed paginated to its end over HTTPS: %s sections in %s chunks" % (result.get("sections"),
                                                                                 result.get("chunks")))
        check(result.get("actionStatus") == 200 and result.get("mutations", 0) > 0,
              "the stepper action posted over HTTPS: status %s, %s mutations" % (result.get("actionStatus"),
                                                                                   result.get("mutations")))

        untrusting_home = os.path.join(work, "home-untrusting")
        nss_database(untrusting_home)
        stranger = browser(untrusting_home)
        drivers.append(stranger)
        try:
            stranger.get(base + "/v1/pages/home")
        except Exception as error:  # some versions raise on the interstitial; the text below decides
            print("       navigation: %s" % str(error).splitlines()[0])
        text = stranger.execute_script("return document.body ? document.body.innerText : ''") or ""
        stranger.save_screenshot(os.path.join(ARTIFACTS, "https-untrusted.png"))
        check("ERR_CERT_AUTHORITY_INVALID" in text, "a browser that does not trust the CA stops at the certificate "
              "error: %r" % text[:120])
        check('"page"' not in text, "and gets no page")
    finally:
        for driver in drivers:
            driver.quit()
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)
    print("all checks passed" if not failures else "%d check(s) failed" % len(failures))
    sys.exit(1 if failures else 0)


main()
