// colony view: shared helpers (DOM building, formatting, details loaded on demand).
// Everything the page shows is built with textContent/attributes, never innerHTML of run
// data, so a reply containing markup stays text.

var INDEX = JSON.parse(document.getElementById("colony-index").textContent);
var DATA = encodeURIComponent(INDEX.data || "report.data");

// Details live in DATA/d<n>.js, loaded only when a row is opened: each file calls
// colonyDetail(generation, n, detail). Opened details are kept (the last CACHE_MAX); a
// search reads details one by one and keeps none.
var detailCache = {}, cacheOrder = [], CACHE_MAX = 16;
var waiting = {};
var staleShown = false;

function staleReport() {
  if (staleShown) return;
  staleShown = true;
  var app = document.getElementById("app");
  if (app) app.insertBefore(h("p", { class: "warning stale", text: "This report was regenerated since the page was loaded: reload the page." }), app.firstChild);
}

window.colonyDetail = function (generation, n, d) {
  if (generation !== INDEX.generation) { staleReport(); return; }
  var cbs = waiting[n];
  if (!cbs) return;
  delete waiting[n];
  cbs.forEach(function (cb) { cb(d, null); });
};

function remember(n, d) {
  if (Object.prototype.hasOwnProperty.call(detailCache, n)) return;
  detailCache[n] = d;
  cacheOrder.push(n);
  while (cacheOrder.length > CACHE_MAX) delete detailCache[cacheOrder.shift()];
}

// Calls cb(detail, error) once detail n is loaded (at once when it is cached); keep: cache it.
function loadDetail(n, cb, keep) {
  if (Object.prototype.hasOwnProperty.call(detailCache, n)) { cb(detailCache[n], null); return; }
  var done = function (d, err) { if (keep && d) remember(n, d); cb(d, err); };
  if (waiting[n]) { waiting[n].push(done); return; }
  waiting[n] = [done];
  var el = document.createElement("script");
  el.src = DATA + "/d" + Number(n) + ".js";
  function fail(why) {
    var cbs = waiting[n];
    delete waiting[n];
    (cbs || []).forEach(function (f) { f(null, why); });
  }
  el.onload = function () { el.remove(); if (waiting[n]) fail(el.src + " holds no detail " + n); };
  el.onerror = function () { el.remove(); fail("could not load " + el.src + " (is the folder " + (INDEX.data || "report.data") + " next to the page?)"); };
  document.head.appendChild(el);
}

// A placeholder that build(detail) replaces once detail n has loaded.
function withDetail(n, build) {
  var box = h("div", { class: "detail-box", "data-detail": n }, h("p", { class: "muted loading", text: "loading…" }));
  loadDetail(n, function (d, err) {
    clear(box);
    if (!d) { box.appendChild(h("p", { class: "warning", text: "detail " + n + ": " + err })); return; }
    append(box, build(d));
  }, true);
  return box;
}

// h("div", {class: "x", text: "y", onclick: f, "data-k": v}, [children])
function h(tag, attrs, children) {
  var el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

var SVGNS = "http://www.w3.org/2000/svg";
function s(tag, attrs, children) {
  var el = document.createElementNS(SVGNS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  if (!attrs) return;
  Object.keys(attrs).forEach(function (k) {
    var v = attrs[k];
    if (v === undefined || v === null || v === false) return;
    if (k === "text") el.textContent = String(v);
    else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  });
}

function append(el, children) {
  if (children === undefined || children === null) return;
  if (!Array.isArray(children)) children = [children];
  children.forEach(function (c) {
    if (c === undefined || c === null || c === false) return;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  });
}

function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

function fmt(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "number") {
    if (Number.isInteger(v)) return String(v);
    return Math.abs(v) >= 100 ? v.toFixed(1) : v.toFixed(3);
  }
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

// A collapsible section whose body is built only when first opened.
function lazyDetails(summary, build, open, cls) {
  var body = h("div", { class: "body" });
  var d = h("details", { class: cls || "" }, [h("summary", null, summary), body]);
  var built = false;
  function fill() {
    if (!built && d.open) { built = true; append(body, build()); }
  }
  d.addEventListener("toggle", fill);
  if (open) { d.open = true; fill(); }
  return d;
}

function pre(text, cls) {
  return h("pre", { class: cls || "text", text: text === null || text === undefined ? "" : String(text) });
}

function jsonBlock(label, value) {
  return lazyDetails(label, function () { return pre(JSON.stringify(value, null, 1), "json"); });
}

function kv(pairs) {
  return h("dl", { class: "kv" }, pairs.filter(function (p) { return p[1] !== undefined && p[1] !== null && p[1] !== ""; })
    .map(function (p) { return h("div", null, [h("dt", { text: p[0] }), h("dd", { text: fmt(p[1]) })]); }));
}

function notesBox(notes, warnings) {
  var out = [];
  (warnings || []).forEach(function (w) { out.push(h("p", { class: "warning", text: "⚠ " + w })); });
  if (notes && notes.length) {
    out.push(h("details", { class: "notes" }, [h("summary", { text: notes.length + " note(s)" }),
      h("ul", null, notes.map(function (n) { return h("li", { text: n }); }))]));
  }
  return out;
}

function table(headers, rows, cls) {
  return h("table", { class: cls || "small" }, [
    h("thead", null, h("tr", null, headers.map(function (x) { return h("th", { text: x }); }))),
    h("tbody", null, rows.map(function (r) {
      return h("tr", null, r.map(function (c) { return h("td", null, typeof c === "object" && c !== null && c.nodeType ? c : fmt(c)); }));
    }))
  ]);
}
