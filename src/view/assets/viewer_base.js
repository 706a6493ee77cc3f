// colony view: shared helpers (DOM building, formatting, lazy detail blocks).
// Everything the page shows is built with textContent/attributes, never innerHTML of run
// data, so a reply containing markup stays text.

var INDEX = JSON.parse(document.getElementById("colony-index").textContent);
var detailCache = {};

// The parsed detail block `d<n>`; parsed on first use only (the table never needs it).
function detail(n) {
  if (!Object.prototype.hasOwnProperty.call(detailCache, n)) {
    var el = document.getElementById("d" + n);
    detailCache[n] = el ? JSON.parse(el.textContent) : null;
  }
  return detailCache[n];
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
