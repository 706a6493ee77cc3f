// colony view: shared helpers (DOM building, formatting, details loaded on demand).
// Everything the page shows is built with textContent/attributes, never innerHTML of run
// data, so a reply containing markup stays text.

var INDEX = JSON.parse(document.getElementById("colony-index").textContent);
var DATA = String(INDEX.data || "report.data").split("/").map(encodeURIComponent).join("/");

// Details live in chunk files DATA/c<k>.js, loaded only when one of their rows is opened:
// each file calls colonyChunk(generation, k, base64) with the gzip of a JSON array of
// [n, detail] pairs, inflated here by the browser (INDEX.chunks[k] is the first detail of
// chunk k). Opened details are kept (the last CACHE_MAX); a search reads
// chunks one by one through a sink and keeps nothing.
var CHUNKS = INDEX.chunks || [];
var detailCache = {}, cacheOrder = [], CACHE_MAX = 16;
var waiting = {};      // detail -> callbacks
var loading = {};      // chunk -> callbacks run when its file has loaded (or failed)
var sinks = {};        // chunk -> function (n, detail) called for each of its details
var pending = {};      // chunk -> promise of its details delivered
var staleShown = false;

function staleReport() {
  if (staleShown) return;
  staleShown = true;
  var app = document.getElementById("app");
  if (app) app.insertBefore(h("p", { class: "warning stale", text: "This report was regenerated since the page was loaded: reload the page." }), app.firstChild);
}

function inflate(b64) {
  var bin = atob(b64), bytes = new Uint8Array(bin.length);
  for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text();
}

window.colonyChunk = function (generation, k, b64) {
  if (generation !== INDEX.generation) { staleReport(); return; }
  pending[k] = inflate(String(b64)).then(function (text) {
    JSON.parse(text).forEach(function (e) { deliver(k, e[0], e[1]); });
  });
};

// Runs f, reporting an exception to #js-errors without stopping the caller (a detail that
// fails to draw must not silently take the rest of its chunk with it).
function guarded(f) {
  try { f(); } catch (e) { setTimeout(function () { throw e; }, 0); }
}

function deliver(k, n, d) {
  if (sinks[k]) { var sink = sinks[k]; guarded(function () { sink(n, d); }); }
  var cbs = waiting[n];
  if (!cbs) return;
  delete waiting[n];
  cbs.forEach(function (cb) { guarded(function () { cb(d, null); }); });
};

function chunkOf(n) {
  var lo = 0, hi = CHUNKS.length - 1;
  while (lo < hi) {
    var mid = (lo + hi + 1) >> 1;
    if (CHUNKS[mid] <= n) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// Loads chunk k's file; done(error) once it has run (error: null) or failed.
function loadChunk(k, done) {
  if (loading[k]) { loading[k].push(done); return; }
  loading[k] = [done];
  var el = document.createElement("script");
  el.src = DATA + "/c" + Number(k) + ".js";
  function end(err) {
    el.remove();
    var cbs = loading[k];
    delete loading[k];
    cbs.forEach(function (f) { f(err); });
  }
  el.onload = function () {
    var p = pending[k];
    delete pending[k];
    if (!p) { end(el.src + " holds no chunk " + k); return; }
    p.then(function () { end(null); }, function (e) { end("could not read " + el.src + ": " + e); });
  };
  el.onerror = function () { end("could not load " + el.src + " (is the folder " + (INDEX.data || "report.data") + " next to the page?)"); };
  document.head.appendChild(el);
}

function remember(n, d) {
  if (Object.prototype.hasOwnProperty.call(detailCache, n)) return;
  detailCache[n] = d;
  cacheOrder.push(n);
  while (cacheOrder.length > CACHE_MAX) delete detailCache[cacheOrder.shift()];
}

// Calls cb(detail, error) once detail n is loaded (at once when it is cached).
function loadDetail(n, cb) {
  if (Object.prototype.hasOwnProperty.call(detailCache, n)) { cb(detailCache[n], null); return; }
  var first = !waiting[n];
  (waiting[n] = waiting[n] || []).push(function (d, err) { if (d) remember(n, d); cb(d, err); });
  if (!first) return;
  loadChunk(chunkOf(n), function (err) {
    var cbs = waiting[n];
    if (!cbs) return;
    delete waiting[n];
    cbs.forEach(function (f) { f(null, err || "chunk " + chunkOf(n) + " holds no detail " + n); });
  });
}

// Calls each(n, detail) for every detail of every chunk, one chunk at a time, while
// keepGoing() holds; then done(chunks read, chunks that failed to load).
function scanDetails(each, keepGoing, progress, done) {
  var k = 0, failed = 0;
  function next() {
    if (k >= CHUNKS.length || !keepGoing()) { done(k, failed); return; }
    var chunk = k++;
    progress(chunk);
    sinks[chunk] = each;
    loadChunk(chunk, function (err) { delete sinks[chunk]; if (err) failed++; setTimeout(next, 0); });
  }
  next();
}

// A placeholder that build(detail) replaces once detail n has loaded.
function withDetail(n, build) {
  var box = h("div", { class: "detail-box", "data-detail": n }, h("p", { class: "muted loading", text: "loading…" }));
  loadDetail(n, function (d, err) {
    clear(box);
    if (!d) { box.appendChild(h("p", { class: "warning detail-error", text: "detail " + n + ": " + err })); return; }
    try {
      append(box, build(d));
    } catch (e) {
      box.appendChild(h("p", { class: "warning detail-error", text: "detail " + n + " could not be drawn: " + e }));
      throw e;
    }
    // When the last opened detail was drawn (the viewer benchmark reads it).
    document.body.setAttribute("data-detail-ms", performance.now().toFixed(1));
  });
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
