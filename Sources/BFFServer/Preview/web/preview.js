// flow-bff preview: the page a device gets, drawn in the browser from the public routes (docs/preview.md).
// Pages come from GET /v1/pages/{id} and /next, actions go to POST /v1/actions/{name}; the journal and the
// reload count come from /__admin (mock mode). Widgets are drawn by the WIDGETS table in widgets.js.
"use strict";

const query = new URLSearchParams(location.search);
const choice = {
  page: query.get("page") || "", profile: query.get("profile") || "", locale: query.get("locale") || "",
  scenario: query.get("scenario") || "", session: query.get("session") || "",
  theme: query.get("theme") || "auto", width: query.get("width") || "390",
  // live=0: no reload stream and no journal polling, so the page settles (headless screenshots, static captures).
  live: query.get("live") === "0" ? "0" : "",
};
const pageParameters = {};
for (const [name, value] of query) if (name.startsWith("p.")) pageParameters[name.slice(2)] = value;

// What tests and curious authors can read: window.flowPreview.
const preview = { ready: false, errors: [], renders: 0, reloads: 0, catalog: null, views: {} };
window.flowPreview = preview;
window.addEventListener("error", (event) => preview.errors.push(String(event.message)));
window.addEventListener("unhandledrejection", (event) => preview.errors.push(String(event.reason)));

const widgetState = new Map(); // widget id → {value, expanded}: kept across pagination, mutations and reloads
const diagnostics = [];

function requestHeaders(extra) {
  const headers = Object.assign({ "Accept": "application/json" }, extra || {});
  const profile = (preview.catalog?.profiles || []).find((p) => p.name === choice.profile);
  if (profile) headers["X-Flow-Client"] = profile.header;
  if (choice.locale) headers["Accept-Language"] = choice.locale;
  if (choice.scenario) headers["X-Flow-Scenario"] = choice.scenario;
  if (choice.session) headers["X-Flow-Session"] = choice.session;
  return headers;
}

// The page requests (/v1/) each carry an X-Request-ID of this page, so the requests panel can tell them apart in
// the journal, and are logged with the size of the answer read (decoded bytes).
async function getJSON(url, options) {
  let row = null;
  if (url.startsWith("/v1/")) {
    const id = requestPrefix + (++requestCounter);
    options = Object.assign({}, options, { headers: Object.assign({}, options?.headers, { "X-Request-ID": id }) });
    row = { id, method: options.method || "GET", target: url, own: true };
    logRequest(row);
  }
  let response, bytes;
  try {
    response = await fetch(url, options);
    bytes = await response.arrayBuffer();
  } catch (error) {
    if (row) logRequest(Object.assign(row, { status: 0, problem: "network error" }));
    throw error;
  }
  const text = new TextDecoder().decode(bytes);
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (error) { body = { detail: text }; }
  if (row) {
    const source = response.headers.get("X-Flow-Source") || undefined;
    logRequest(Object.assign(row, { status: response.status, bytes: bytes.byteLength, source,
      problem: response.ok ? undefined : body?.code }));
    noteContract(url, response.headers.get("X-Flow-Contract"));
  }
  if (!response.ok) {
    const problem = body || {};
    throw new Error(response.status + " " + (problem.code || "") + ": " + (problem.detail || problem.title || ""));
  }
  return body;
}

// MARK: documents and mutations (contract § 9.2)

function topLevelLists(page) {
  const lists = [page.header || []];
  for (const section of page.sections || []) lists.push(section.widgets || []);
  lists.push(page.footer || []);
  return lists;
}

function locate(page, id) {
  for (const list of topLevelLists(page)) {
    const index = list.findIndex((w) => w.id === id);
    if (index >= 0) return { list, index };
  }
  const search = (list) => {
    for (const w of list) {
      const children = w.children || [];
      const index = children.findIndex((child) => child.id === id);
      if (index >= 0) return { list: children, index };
      const found = search(children);
      if (found) return found;
    }
    return null;
  };
  for (const list of topLevelLists(page)) {
    const found = search(list);
    if (found) return found;
  }
  return null;
}

function applyMutation(view, mutation) {
  const page = view.page;
  switch (mutation.type) {
    case "replacePage":
      view.page = mutation.page;
      break;
    case "appendSections":
      page.sections = (page.sections || []).concat(mutation.sections || []);
      break;
    case "prependSections":
      page.sections = (mutation.sections || []).concat(page.sections || []);
      break;
    case "replaceWidget": {
      const at = locate(page, mutation.id);
      if (!at) throw new Error("mutation_target_not_found: " + mutation.id);
      const widget = Object.assign({ id: mutation.id }, mutation.widget);
      at.list[at.index] = widget;
      break;
    }
    case "removeWidget": {
      const at = locate(page, mutation.id);
      if (!at) throw new Error("mutation_target_not_found: " + mutation.id);
      at.list.splice(at.index, 1);
      break;
    }
    default:
      note("warning", "unknown_mutation_type", mutation.type);
  }
}

// MARK: loading

function pageURL(pageID, parameters) {
  const search = new URLSearchParams(parameters || {}).toString();
  return "/v1/pages/" + encodeURIComponent(pageID) + (search ? "?" + search : "");
}

async function loadView(view, keepSections) {
  const envelope = await getJSON(pageURL(view.pageID, view.parameters), { headers: requestHeaders() });
  view.page = envelope.page;
  view.degradations = envelope.degradations || [];
  // A live reload loads as many chunks as were shown, so the scroll position survives.
  for (let round = 0; round < 100 && keepSections && view.page.pagination?.hasMore
    && (view.page.sections || []).length < keepSections; round++) {
    await loadNext(view, false);
  }
  view.problem = null;
}

async function loadNext(view, draw = true) {
  const pagination = view.page?.pagination;
  if (!pagination?.hasMore || view.loading) return;
  view.loading = true;
  try {
    const url = "/v1/pages/" + encodeURIComponent(view.pageID) + "/next?postback="
      + encodeURIComponent(pagination.postback);
    const envelope = await getJSON(url, { headers: requestHeaders() });
    view.page.sections = (view.page.sections || []).concat(envelope.sections || []);
    view.page.pagination = envelope.pagination || { hasMore: false };
    view.degradations = view.degradations.concat(envelope.degradations || []);
  } catch (error) {
    view.page.pagination = { hasMore: false };
    toast("next page failed: " + error.message);
  } finally {
    view.loading = false;
  }
  if (draw) render(view);
}

// MARK: actions (contract § 8)

function newIdempotencyKey() {
  return globalThis.crypto?.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random();
}

async function fire(view, widget, event, value) {
  const action = widget.actions?.[event];
  if (action) await run(view, action, { widget, event, value });
}

async function run(view, action, origin) {
  switch (action.type) {
    case "toast": toast(action.message); break;
    case "dismiss": closeSheet(); break;
    case "deeplink": deeplink(action.url); break;
    case "refresh_page":
      widgetState.clear();
      await loadView(view);
      render(view);
      break;
    case "open_bottom_sheet": await openSheet(action.pageID, action.parameters || {}); break;
    case "api": {
      const body = { pageID: view.pageID, widgetID: origin.widget.id, event: origin.event };
      if (origin.value !== undefined) body.value = origin.value;
      if (action.payload !== undefined) body.payload = action.payload;
      let answer;
      try {
        answer = await getJSON("/v1/actions/" + encodeURIComponent(action.name), {
          method: "POST", body: JSON.stringify(body),
          headers: requestHeaders({ "Content-Type": "application/json", "Idempotency-Key": newIdempotencyKey() }),
        });
      } catch (error) {
        toast("action " + action.name + " failed: " + error.message);
        return;
      }
      // All or nothing, like PageStore (docs/pagestore.md): the mutations are applied to a copy first.
      const draft = { page: structuredClone(view.page) };
      try {
        for (const mutation of answer.mutations || []) applyMutation(draft, mutation);
      } catch (error) {
        note("error", "mutation_failed", action.name + ": " + error.message);
        render(view);
        return;
      }
      view.page = draft.page;
      view.degradations = view.degradations.concat(answer.degradations || []);
      render(view);
      for (const effect of answer.effects || []) await run(view, effect, origin);
      break;
    }
    default: note("warning", "unknown_action_type", action.type);
  }
}

function toast(message) {
  const node = el("div", "toast", message);
  document.getElementById("toasts").append(node);
  setTimeout(() => node.remove(), 3000);
}

function deeplink(url) {
  const item = el("li", "", url);
  document.getElementById("deeplinks").append(item);
  toast("deeplink " + url);
}

async function openSheet(pageID, parameters) {
  const view = { pageID, parameters, node: document.getElementById("sheet"), degradations: [] };
  preview.views.sheet = view;
  view.node.hidden = false;
  document.getElementById("backdrop").hidden = false;
  try { await loadView(view); } catch (error) { view.problem = error.message; }
  render(view);
}

function closeSheet() {
  const node = document.getElementById("sheet");
  node.hidden = true;
  node.replaceChildren();
  document.getElementById("backdrop").hidden = true;
  delete preview.views.sheet;
}

// MARK: drawing

function stateOf(id, key, initial) {
  const entry = widgetState.get(id);
  return entry && key in entry ? entry[key] : initial;
}

function drawWidget(view, w) {
  const problem = widgetProblem(w);
  if (problem) {
    note("error", problem.startsWith("unknown") ? "unknown_widget_type" : "invalid_content", w.id + ": " + problem);
    const node = el("div", "widget placeholder", "⚠ " + (w.id || w.type) + " — " + problem);
    node.dataset.widgetId = w.id || "";
    return node;
  }
  const ctx = {
    widget: (child) => drawWidget(view, child),
    fire: (widget, event, value) => fire(view, widget, event, value),
    state: stateOf,
    setState(id, key, value, redraw = true) {
      widgetState.set(id, Object.assign(widgetState.get(id) || {}, { [key]: value }));
      if (redraw) render(view);
    },
  };
  const node = WIDGETS[w.type].render(w, ctx);
  node.classList.add("widget", "w-" + w.type);
  node.dataset.widgetId = w.id || "";
  node.dataset.type = w.type;
  if (w.actions?.tap && w.type !== "button") {
    node.classList.add("tappable");
    node.addEventListener("click", (event) => { event.stopPropagation(); fire(view, w, "tap"); });
  }
  return node;
}

function render(view) {
  const node = view.node;
  const scroll = node.scrollTop;
  const content = [];
  if (view === preview.views.sheet) {
    // The sheet's top bar: a grab handle (as on a device) and a close button; the backdrop closes it too.
    const bar = el("div", "grabber");
    const close = el("button", "close", "✕");
    close.setAttribute("aria-label", "close");
    close.addEventListener("click", closeSheet);
    bar.append(el("div", "handle"), close);
    content.push(bar);
  }
  if (view.problem) {
    content.push(el("div", "problem", view.problem));
  } else if (view.page) {
    const page = view.page;
    if (page.title) content.push(el("div", "page-title", page.title));
    for (const w of page.header || []) content.push(drawWidget(view, w));
    for (const section of page.sections || []) {
      const box = el("div", "section");
      box.dataset.sectionId = section.id || "";
      if (section.title) box.append(el("div", "section-title", section.title));
      for (const w of section.widgets || []) box.append(drawWidget(view, w));
      content.push(box);
    }
    const widgets = topLevelLists(page).reduce((count, list) => count + list.length, 0);
    if (widgets === 0) content.push(el("div", "end empty", "empty page (a device shows its empty state)"));
    if (page.pagination?.hasMore) {
      const sentinel = el("div", "loading", "loading more…");
      content.push(sentinel);
      view.observer?.disconnect();
      const observer = new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting)) { observer.disconnect(); loadNext(view); }
      }, { root: node });
      observer.observe(sentinel);
      view.observer = observer;
    } else {
      content.push(el("div", "end", "end of page"));
    }
    if ((page.footer || []).length > 0) {
      const footer = el("div", "page-footer"); // pinned to the bottom of the frame (preview.css)
      for (const w of page.footer) footer.append(drawWidget(view, w));
      content.push(footer);
    }
  }
  node.replaceChildren(...content);
  node.scrollTop = scroll;
  preview.renders += 1;
  drawDiagnostics();
}

// A proxied answer's contract check (X-Flow-Contract, docs/proxy.md): "ok", or "N errors, M warnings; code
// /pointer; …" with the errors first — each listed finding becomes a diagnostic naming the request.
function noteContract(url, summary) {
  if (!summary || summary === "ok") return;
  const [counts, ...findings] = summary.split("; ");
  const errors = parseInt(counts, 10) || 0;
  findings.forEach((finding, index) => {
    const [code, pointer] = finding.split(" ");
    note(index < errors ? "error" : "warning", code, "upstream answer to " + url + " at " + (pointer || "/"));
  });
  if (findings.length === 0) note("warning", "upstream_contract", url + ": " + counts);
}

function note(severity, code, message) {
  if (!diagnostics.some((d) => d.code === code && d.message === message)) diagnostics.push({ severity, code, message });
}

function drawDiagnostics() {
  const list = document.getElementById("diagnostics");
  const items = diagnostics.map((d) => el("li", d.severity, d.severity + " " + d.code + ": " + d.message));
  for (const view of Object.values(preview.views)) {
    for (const d of view.degradations || []) {
      items.push(el("li", "warning", d.code + " " + (d.widgetID || d.sectionID || "") + ": " + (d.reason || "")));
    }
  }
  if (items.length === 0) items.push(el("li", "", "none"));
  list.replaceChildren(...items);
}

// MARK: index and controls

// parameters: the page parameters of the link (p.<name>); absent, the shown page's when the page stays the same.
function linkFor(changes, parameters) {
  const next = new URLSearchParams();
  const merged = Object.assign({}, choice, changes);
  for (const [name, value] of Object.entries(merged)) if (value) next.set(name, value);
  const kept = parameters || ("page" in changes ? {} : pageParameters);
  for (const [name, value] of Object.entries(kept)) next.set("p." + name, value);
  return "/__preview?" + next.toString();
}

function sameParameters(sample) {
  const names = Object.keys(sample);
  return names.length === Object.keys(pageParameters).length && names.every((n) => pageParameters[n] === sample[n]);
}

function drawIndex(catalog) {
  const nav = document.getElementById("index");
  nav.append(el("h3", "", "pages"));
  for (const page of catalog.pages) {
    // A page made per data item answers only with its parameter: it opens with a sample, each listed below it.
    const samples = page.parameters || [];
    const link = el("a", page.id === choice.page && !choice.scenario && !samples.length ? "current" : "", page.id);
    link.href = linkFor({ page: page.id, scenario: "" }, samples[0]);
    if (page.source === "provider") link.title = "Swift provider page";
    nav.append(link);
    for (const sample of samples) {
      const label = Object.entries(sample).map(([name, value]) => name + "=" + value).join("&");
      const sub = el("a", "scenario" + (page.id === choice.page && sameParameters(sample) ? " current" : ""), label);
      sub.href = linkFor({ page: page.id, scenario: "" }, sample);
      nav.append(sub);
    }
    for (const scenario of page.scenarios) {
      const sub = el("a", "scenario" + (page.id === choice.page && scenario === choice.scenario ? " current" : ""),
        "scenario " + scenario);
      sub.href = linkFor({ page: page.id, scenario });
      nav.append(sub);
    }
  }
  if ((catalog.data || []).length) {
    nav.append(el("h3", "", "data"));
    for (const document of catalog.data) {
      nav.append(el("div", "hint", "data/" + document.name + ".json" + (document.items === null ? "" : " · " + document.items + " items")));
    }
  }
}

function drawControls(catalog) {
  const form = document.getElementById("controls");
  const profiles = form.elements.profile;
  profiles.append(new Option("(no X-Flow-Client)", ""));
  for (const profile of catalog.profiles) profiles.append(new Option(profile.name, profile.name));
  const scenarios = form.elements.scenario;
  scenarios.append(new Option("(none)", ""));
  const page = catalog.pages.find((p) => p.id === choice.page);
  for (const scenario of page?.scenarios || []) scenarios.append(new Option(scenario, scenario));
  for (const name of ["profile", "locale", "scenario", "session", "theme", "width"]) {
    form.elements[name].value = choice[name];
    form.elements[name].addEventListener("change", () => { location.href = linkFor({ [name]: form.elements[name].value }); });
  }
  // theme=auto (the default) follows the system's prefers-color-scheme, also when it changes.
  const systemDark = matchMedia("(prefers-color-scheme: dark)");
  const applyTheme = () => document.body.classList.toggle("dark",
    choice.theme === "dark" || (choice.theme === "auto" && systemDark.matches));
  applyTheme();
  systemDark.addEventListener("change", applyTheme);
  document.getElementById("phone").style.width = (parseInt(choice.width, 10) || 390) + "px";
}

// The proxy (docs/proxy.md): where the shown page comes from — its local file or the upstream — switched through
// the admin API, and any other page id opened by name (upstream pages are not in the local index).
async function drawProxyControls() {
  let proxy;
  try { proxy = await getJSON("/__admin/proxy"); } catch (error) { return; }
  if (!proxy.enabled) return;
  preview.proxy = proxy;
  const nav = document.getElementById("index");
  nav.append(el("h3", "", "upstream"));
  const open = el("form", "open-page");
  const input = el("input");
  input.name = "page";
  input.placeholder = "page id";
  input.size = 12;
  open.append(input, el("button", "", "open"));
  open.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value) location.href = linkFor({ page: input.value, scenario: "" });
  });
  nav.append(open, el("p", "hint", "Pages without a local file come from " + proxy.upstream + "."));
  if (!choice.page) return;
  const state = proxy.pages[choice.page];
  const label = el("label", "", "source ");
  const select = el("select");
  select.name = "source";
  select.append(new Option("local file", "local"), new Option("upstream", "upstream"));
  select.options[0].disabled = !state?.local;
  select.value = state?.source || "upstream";
  label.append(select);
  document.getElementById("controls").append(label);
  select.addEventListener("change", async () => {
    try {
      await getJSON("/__admin/proxy/pages/" + encodeURIComponent(choice.page), {
        method: "PUT", body: JSON.stringify({ source: select.value }),
        headers: { "Content-Type": "application/json", "X-Flow-Admin": "1" },
      });
      location.reload();
    } catch (error) {
      toast("switch failed: " + error.message);
    }
  });
}

// MARK: live reload (server-sent events from /__preview/events) and the journal (mock mode: /__admin, polled)

let reloadCount = null;
let journalAfter = 0;

// Each reload of the pages directory arrives as an event with the reload count (the current one first, on every
// connection). A changed count reloads the shown pages; the reload's errors come from /__admin/status.
function listenForReloads() {
  const events = new EventSource("/__preview/events");
  let queue = Promise.resolve();
  events.addEventListener("reload", (event) => {
    const count = JSON.parse(event.data).count;
    queue = queue.then(() => reloaded(count));
  });
  // A stream that stays open holds one of the browser's six connections to this host, also while the page sits in
  // the back/forward cache: close it when the page is hidden, reopen it when the page is shown from that cache.
  window.addEventListener("pagehide", () => events.close(), { once: true });
  window.addEventListener("pageshow", (event) => { if (event.persisted) listenForReloads(); }, { once: true });
}

async function reloaded(count) {
  try {
    const status = await getJSON("/__admin/status");
    const errors = status.reload.diagnostics.filter((d) => d.severity === "error");
    const box = document.getElementById("reload-error");
    box.hidden = errors.length === 0;
    box.textContent = errors.map((d) => d.file + ": " + (d.path || "/") + ": " + d.code + ": " + d.message).join("\n");
  } catch (error) {
    // The admin API answers loopback only; the pages still reload without the error box.
  }
  if (reloadCount !== null && count !== reloadCount) await liveReload();
  reloadCount = count;
}

// MARK: the requests panel

// Rows, oldest first: the preview's own requests as it sends them (with the size of each answer), and from the
// journal, the faults the server applied to them and, when a session is chosen, the other clients' requests in
// that session. Without a session the journal holds every client's traffic: only this page's rows are shown.
const requestLog = [];
const requestPrefix = "preview-" + Math.random().toString(16).slice(2, 10) + "-";
let requestCounter = 0;
let journalRead = false;

function logRequest(row) {
  if (!requestLog.includes(row)) requestLog.push(row);
  if (requestLog.length > 200) requestLog.splice(0, requestLog.length - 200);
  drawRequests();
}

function drawRequests() {
  const scope = !choice.session ? "This preview's own requests (no session: other clients are left out)."
    : "Session " + choice.session + ": this preview's requests"
      + (journalRead ? " and other clients' in the session (journal)." : ".");
  const journal = journalRead ? "" : choice.live === "0" ? " Journal not read (live=0)." : " Journal not read.";
  document.getElementById("requests-scope").textContent = scope + journal + " Sizes: bytes of each answer.";
  const items = requestLog.slice(-60).reverse().map((row) => {
    const target = row.target.length > 90 ? row.target.slice(0, 87) + "…" : row.target;
    const notes = [];
    if (row.own) notes.push(row.bytes === undefined ? "…" : row.bytes.toLocaleString("en") + " B");
    else {
      notes.push("other client, " + row.responseBytes.toLocaleString("en") + " B"
        + (row.requestBytes > 0 ? " (sent " + row.requestBytes.toLocaleString("en") + " B)" : ""));
    }
    if (row.faults?.length) notes.push("fault " + row.faults.join(" "));
    if (row.scenario) notes.push("scenario " + row.scenario);
    if (row.source) notes.push("from " + row.source);
    const status = row.status === undefined ? "" : " → " + row.status + (row.problem ? " " + row.problem : "");
    const item = el("li", row.status === 0 || row.status >= 400 ? "error" : "",
      row.method + " " + target + status + " · " + notes.join(", "));
    item.dataset.requestId = row.id;
    return item;
  });
  document.getElementById("requests").replaceChildren(...items);
}

async function pollJournal() {
  try {
    const session = choice.session ? "&session=" + encodeURIComponent(choice.session) : "";
    const journal = await getJSON("/__admin/journal?after=" + journalAfter + session);
    journalRead = true;
    for (const entry of journal.entries) {
      journalAfter = Math.max(journalAfter, entry.sequence);
      if (!entry.target.startsWith("/v1/")) continue;
      const id = (entry.headers || []).find(([name]) => name.toLowerCase() === "x-request-id")?.[1];
      const own = requestLog.find((row) => row.own && row.id === id);
      if (own) {
        Object.assign(own, { faults: entry.faults, scenario: entry.scenario });
        if (own.status === undefined || own.status === 0) Object.assign(own, { status: entry.status, problem: entry.problem });
      } else if (choice.session && !id?.startsWith(requestPrefix)) {
        logRequest({ id: "journal-" + entry.sequence, method: entry.method, target: entry.target,
          status: entry.status, problem: entry.problem, faults: entry.faults, scenario: entry.scenario,
          requestBytes: entry.bodyBytes, responseBytes: entry.responseBytes });
      }
    }
    // How far the journal has been read, for tests that wait for a request to have been considered.
    document.getElementById("requests").dataset.journalAfter = journalAfter;
    drawRequests();
  } catch (error) {
    // The admin API answers loopback only; the page still works without it.
  }
  setTimeout(pollJournal, 250);
}

async function liveReload() {
  for (const view of Object.values(preview.views)) {
    const shown = (view.page?.sections || []).length;
    try { await loadView(view, shown); } catch (error) { toast("reload failed: " + error.message); continue; }
    render(view);
  }
  preview.reloads += 1;
}

async function start() {
  document.getElementById("backdrop").addEventListener("click", closeSheet);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && preview.views.sheet) closeSheet();
  });
  drawRequests();
  const catalog = await getJSON("/__preview/catalog.json");
  preview.catalog = catalog;
  drawIndex(catalog);
  drawControls(catalog);
  if (catalog.mock) await drawProxyControls();
  const screen = document.getElementById("screen");
  if (!choice.page) {
    screen.replaceChildren(el("div", "page-title", "Pick a page"),
      el("div", "widget", catalog.pages.length + " pages; the envelopes come from /v1/pages/… like a device's."));
  } else {
    const view = { pageID: choice.page, parameters: pageParameters, node: screen, degradations: [] };
    preview.views.main = view;
    try { await loadView(view); } catch (error) { view.problem = error.message; }
    render(view);
  }
  if (catalog.mock && choice.live !== "0") { listenForReloads(); pollJournal(); }
  preview.ready = true;
}

start().catch((error) => { preview.errors.push(String(error)); });
