// flow-bff preview: how each widget type of the catalog is drawn. One entry per type of WidgetCatalog.standard
// (Sources/PageModel/Catalog/WidgetCatalog.swift); PreviewAssetsTests keeps the keys of this table equal to it.
// `required` mirrors the catalog's required content fields and their JSON types; a widget that misses one gets
// the placeholder look (like PageStore's outline), and so does a type that is not in the table.
"use strict";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function thumb(className, url) {
  const node = el("div", className);
  if (url) node.title = url;
  return node;
}

const WIDGETS = {
  "text": {
    required: { text: "string" },
    render(w) { return el("div", w.content.style || "", w.content.text); },
  },
  "image": {
    required: { url: "string" },
    render(w) {
      const box = el("div", "", w.content.alt || "image");
      box.title = w.content.url;
      if (typeof w.content.aspectRatio === "number" && w.content.aspectRatio > 0) {
        box.style.aspectRatio = String(w.content.aspectRatio);
      }
      return box;
    },
  },
  "button": {
    required: { title: "string" },
    render(w, ctx) {
      const button = el("button", w.content.style || "", w.content.title);
      button.disabled = w.content.enabled === false;
      button.addEventListener("click", (event) => { event.stopPropagation(); ctx.fire(w, "tap"); });
      return button;
    },
  },
  "stepper": {
    required: { value: "integer" },
    render(w, ctx) {
      const c = w.content;
      const value = ctx.state(w.id, "value", c.value);
      const min = Number.isInteger(c.min) ? c.min : -Infinity;
      const max = Number.isInteger(c.max) ? c.max : Infinity;
      const step = Number.isInteger(c.step) && c.step > 0 ? c.step : 1;
      const row = el("div");
      row.append(el("span", "label", c.label || ""));
      const controls = el("span");
      const minus = el("button", "minus", "−");
      const output = el("output", "", value);
      const plus = el("button", "plus", "+");
      minus.disabled = value - step < min;
      plus.disabled = value + step > max;
      const change = (next) => {
        ctx.setState(w.id, "value", next);
        ctx.fire(w, "change", next);
      };
      minus.addEventListener("click", () => change(value - step));
      plus.addEventListener("click", () => change(value + step));
      controls.append(minus, output, plus);
      row.append(controls);
      return row;
    },
  },
  "accordion": {
    required: { title: "string" },
    render(w, ctx) {
      const details = el("details");
      details.open = ctx.state(w.id, "expanded", w.content.expanded === true);
      details.addEventListener("toggle", () => ctx.setState(w.id, "expanded", details.open, false));
      details.append(el("summary", "", w.content.title));
      for (const child of w.children || []) details.append(ctx.widget(child));
      return details;
    },
  },
  "carousel": {
    required: {},
    render(w, ctx) {
      const box = el("div");
      if (w.content.title) box.append(el("div", "title", w.content.title));
      const track = el("div", "track");
      for (const child of w.children || []) track.append(ctx.widget(child));
      box.append(track);
      return box;
    },
  },
  "banner": {
    required: { title: "string" },
    render(w) {
      const box = el("div", w.content.style || "");
      box.append(el("div", "title", w.content.title));
      if (w.content.subtitle) box.append(el("div", "subtitle", w.content.subtitle));
      return box;
    },
  },
  "list_row": {
    required: { title: "string" },
    render(w) {
      const row = el("div");
      row.append(thumb("thumb", w.content.imageURL));
      const body = el("div", "body");
      body.append(el("div", "title", w.content.title));
      if (w.content.subtitle) body.append(el("div", "subtitle", w.content.subtitle));
      row.append(body);
      if (w.content.trailing) row.append(el("div", "trailing", w.content.trailing));
      return row;
    },
  },
  "product_card": {
    required: { title: "string", price: "string" },
    render(w) {
      const card = el("div");
      if (w.content.badge) card.append(el("span", "badge", w.content.badge));
      card.append(thumb("thumb", w.content.imageURL), el("div", "title", w.content.title),
        el("div", "price", w.content.price));
      return card;
    },
  },
  "key_value": {
    required: { label: "string", value: "string" },
    render(w) {
      const row = el("div");
      row.append(el("span", "label", w.content.label), el("span", "value", w.content.value));
      return row;
    },
  },
  "empty_state": {
    required: { title: "string" },
    render(w) {
      const box = el("div");
      box.append(el("div", "title", w.content.title));
      if (w.content.message) box.append(el("div", "subtitle", w.content.message));
      return box;
    },
  },
  "divider": {
    required: {},
    render() { return el("div"); },
  },
  "spacer": {
    required: {},
    render(w) {
      const box = el("div");
      box.style.height = (typeof w.content.height === "number" ? w.content.height : 16) + "px";
      return box;
    },
  },
};

// Why a widget cannot be drawn as its type, or null: the same rules as the contract's decoding (§ 11).
function widgetProblem(w) {
  const spec = WIDGETS[w.type];
  if (!spec) return "unknown widget type \"" + w.type + "\"";
  if (typeof w.content !== "object" || w.content === null || Array.isArray(w.content)) {
    return "invalid content: not an object";
  }
  for (const [field, type] of Object.entries(spec.required)) {
    const value = w.content[field];
    const ok = type === "integer" ? Number.isInteger(value) : typeof value === type;
    if (!ok) return "invalid content: " + w.type + " requires " + field + " (" + type + ")";
  }
  return null;
}
