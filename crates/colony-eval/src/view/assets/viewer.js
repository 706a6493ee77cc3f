// colony view: the page (units, the results table, routing by location.hash, search).
// Deep links (add &open=1 to expand every call): #unit=U&policy=P&item=ID[&dataset=D]  ·  #unit=U&policy=P&seed=S[&config=C]&step=K
//             #unit=U&compare=P1,P2&item=ID (or &seed=S)  ·  #q=text (search)
// The table's state rides along, so a link reproduces the view: &sort=COLUMN[&desc=1]
// &filter=TEXT &only=POLICY &rows=N (rows shown).

var CV = {};
var PAGE = 500;
var units = INDEX.units || [];
var app = document.getElementById("app");
var state = { unit: null, sortCol: null, sortDir: 1, filter: "", policy: "", limit: PAGE };

function col(unit, name) { return unit.cols.indexOf(name); }

// A malformed escape in the address (`#q=%`) is taken literally instead of blanking the page.
function safeDecode(s) {
  try { return decodeURIComponent(s); } catch (e) { return s; }
}

function parseHash() {
  var p = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    if (!kv) return;
    var i = kv.indexOf("=");
    var k = safeDecode(i < 0 ? kv : kv.slice(0, i));
    p[k] = i < 0 ? "" : safeDecode(kv.slice(i + 1).replace(/\+/g, " "));
  });
  return p;
}

function hashOf(p) {
  return "#" + Object.keys(p).filter(function (k) { return p[k] !== undefined && p[k] !== null && p[k] !== ""; })
    .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(p[k]); }).join("&");
}

var TABLE_KEYS = ["sort", "desc", "filter", "only", "rows"];

// The table's sort, filter and length as address parameters.
function tableParams() {
  var t = {};
  if (!state.unit) return t;
  if (state.sortCol !== null) { t.sort = state.unit.cols[state.sortCol]; if (state.sortDir < 0) t.desc = "1"; }
  if (state.filter) t.filter = state.filter;
  if (state.policy) t.only = state.policy;
  if (state.limit > PAGE) t.rows = String(state.limit);
  return t;
}

// Navigates to `p`, keeping the table's state when it stays on the same unit.
function go(p) {
  if (state.unit && (!p.unit || p.unit === state.unit.path)) {
    var t = tableParams();
    Object.keys(t).forEach(function (k) { if (!(k in p)) p[k] = t[k]; });
  }
  location.hash = hashOf(p);
}

// Writes the table's state into the address without re-rendering.
function saveTable() {
  var p = parseHash();
  TABLE_KEYS.forEach(function (k) { delete p[k]; });
  var t = tableParams();
  Object.keys(t).forEach(function (k) { p[k] = t[k]; });
  if (state.unit) p.unit = state.unit.path;
  history.replaceState(null, "", hashOf(p));
}

// The table state an address asks for on `unit`.
function tableFromHash(unit, p) {
  var c = p.sort !== undefined ? col(unit, p.sort) : -1;
  var rows = parseInt(p.rows, 10);
  return { sortCol: c >= 0 ? c : null, sortDir: c >= 0 && p.desc === "1" ? -1 : 1, filter: p.filter || "", policy: p.only || "",
    limit: rows > PAGE ? Math.min(rows, 1e7) : PAGE };
}

// Updates one parameter without re-rendering (the step slider).
CV.replaceParam = function (k, v) {
  var p = parseHash();
  p[k] = v;
  history.replaceState(null, "", hashOf(p));
};

function unitById(id) {
  for (var i = 0; i < units.length; i++) if (units[i].path === id) return units[i];
  return units[0];
}

// The row of `unit` for a policy and an item (eval) or seed (+ configuration) (compare).
function findRow(unit, policy, p) {
  var pc = col(unit, "policy");
  for (var i = 0; i < unit.rows.length; i++) {
    var r = unit.rows[i];
    if (r[pc] !== policy) continue;
    if (unit.kind === "eval") {
      if (String(r[col(unit, "id")]) === p.item && (!p.dataset || r[col(unit, "dataset")] === p.dataset)) return r;
    } else if (String(r[col(unit, "seed")]) === String(p.seed) && (p.config === undefined || r[col(unit, "config")] === p.config)) {
      return r;
    }
  }
  return null;
}

function rowLink(unit, r) {
  var p = { unit: unit.path, policy: r[col(unit, "policy")] };
  if (unit.kind === "eval") { p.item = r[col(unit, "id")]; p.dataset = r[col(unit, "dataset")]; }
  else { p.seed = r[col(unit, "seed")]; p.config = r[col(unit, "config")]; }
  return p;
}

function policiesOf(unit) {
  var seen = {}, out = [], pc = col(unit, "policy");
  unit.rows.forEach(function (r) { if (!seen[r[pc]]) { seen[r[pc]] = 1; out.push(r[pc]); } });
  return out;
}

// Per-policy means computed from the rows (the run's own tables are shown as results.md).
function policySummary(unit) {
  var pc = col(unit, "policy"), by = {};
  var val = unit.kind === "eval" ? col(unit, "correct") : col(unit, "score");
  var ec = col(unit, "error"), tc = col(unit, "tokens");
  unit.rows.forEach(function (r) {
    var s = by[r[pc]] = by[r[pc]] || { n: 0, errors: 0, sum: 0, tokens: 0 };
    s.n++;
    if (r[ec]) s.errors++; else s.sum += Number(r[val]) || 0;
    s.tokens += Number(r[tc]) || 0;
  });
  var head = unit.kind === "eval" ? "accuracy" : "mean score";
  return table(["policy", "rows", "errors", head, "mean tokens"], Object.keys(by).map(function (k) {
    var s = by[k], ok = s.n - s.errors;
    return [k, s.n, s.errors, ok ? s.sum / ok : null, s.tokens / s.n];
  }), "small policy-summary");
}

function visibleRows(unit) {
  var rows = unit.rows;
  var f = state.filter.toLowerCase(), pc = col(unit, "policy");
  if (f || state.policy) {
    rows = rows.filter(function (r) {
      if (state.policy && r[pc] !== state.policy) return false;
      if (!f) return true;
      for (var i = 0; i < r.length - 1; i++) if (r[i] !== null && String(r[i]).toLowerCase().indexOf(f) >= 0) return true;
      return false;
    });
  }
  if (state.sortCol !== null) {
    var c = state.sortCol, dir = state.sortDir;
    rows = rows.slice().sort(function (a, b) {
      var x = a[c], y = b[c];
      if (x === y) return 0;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      if (typeof x === "number" && typeof y === "number") return (x - y) * dir;
      return String(x).localeCompare(String(y), undefined, { numeric: true }) * dir;
    });
  }
  return rows;
}

function renderRows(unit, tbody, status) {
  var rows = visibleRows(unit);
  clear(tbody);
  var shown = rows.slice(0, state.limit);
  var frag = document.createDocumentFragment();
  var hide = { detail: 1 };
  if (unit.kind === "compare" && !unit.grid.length) hide.config = 1;
  shown.forEach(function (r) {
    var tr = h("tr", { "data-row": r[r.length - 1] });
    unit.cols.forEach(function (name, i) {
      if (hide[name]) return;
      var v = r[i], cls = null;
      if (name === "correct") { cls = v ? "ok" : "bad"; v = v ? "✓" : "✗"; }
      if (name === "error" && v) cls = "err";
      tr.appendChild(h("td", { class: cls, text: fmt(v), title: name === "error" && v ? v : null }));
    });
    tr.addEventListener("click", function () { go(rowLink(unit, r)); });
    frag.appendChild(tr);
  });
  tbody.appendChild(frag);
  status.textContent = shown.length + " of " + rows.length + " rows shown (" + unit.rows.length + " in the unit)";
  return rows.length > shown.length;
}

function unitView(unit) {
  var head = [h("h2", { text: (unit.kind === "eval" ? "Reasoning run " : "Embodied comparison ") + unit.path })];
  // Simulated numbers are never shown unlabelled (results.md and the CSV say it too).
  if (unit.simulated) head.push(h("p", { class: "warning simulation", text: "SIMULATION: offline simulated model (sim); these figures are not a real model's answers" }));
  if (unit.kind === "compare") {
    head.push(kv([["environment", unit.env], ["settings", (unit.set || []).join(" ")], ["max steps", unit.max_steps],
      ["model", unit.model], ["grid", (unit.grid || []).map(function (g) { return g.key + "=" + g.values.join(","); }).join(" ")]]));
  }
  head.push(policySummary(unit));
  if (unit.results_md) head.push(lazyDetails("results.md", function () { return pre(unit.results_md); }));
  if (unit.summary) head.push(jsonBlock("summary.json", unit.summary));
  head = head.concat(notesBox(unit.notes));
  var filter = h("input", { type: "search", class: "filter", placeholder: "filter rows…", value: state.filter });
  var pol = h("select", { class: "policy-filter" }, [h("option", { value: "", text: "all policies" })]
    .concat(policiesOf(unit).map(function (p) { return h("option", { value: p, text: p, selected: p === state.policy }); })));
  var status = h("span", { class: "status" });
  var tbody = h("tbody");
  var more = h("button", { type: "button", text: "show more rows" });
  var hide = { detail: 1 };
  if (unit.kind === "compare" && !unit.grid.length) hide.config = 1;
  var ths = [];
  unit.cols.forEach(function (name, i) {
    if (hide[name]) return;
    ths.push(h("th", { text: name, title: "sort by " + name, "data-col": i, onclick: function () {
      state.sortDir = state.sortCol === i ? -state.sortDir : 1;
      state.sortCol = i;
      refresh();
      saveTable();
    } }));
  });
  function refresh() { more.hidden = !renderRows(unit, tbody, status); }
  filter.addEventListener("input", function () { state.filter = filter.value; state.limit = PAGE; refresh(); saveTable(); });
  pol.addEventListener("change", function () { state.policy = pol.value; state.limit = PAGE; refresh(); saveTable(); });
  more.addEventListener("click", function () { state.limit += PAGE; refresh(); saveTable(); });
  var ps = policiesOf(unit);
  var pa = h("select", { class: "cmp-a" }, ps.map(function (p, i) { return h("option", { value: p, text: p, selected: i === 0 }); }));
  var pb = h("select", { class: "cmp-b" }, ps.map(function (p, i) { return h("option", { value: p, text: p, selected: i === 1 }); }));
  var side = h("button", { type: "button", text: "side by side", onclick: function () {
    var p = parseHash(), q = { unit: unit.path, compare: pa.value + "," + pb.value };
    if (unit.kind === "eval") { q.item = p.item || (unit.rows[0] && unit.rows[0][col(unit, "id")]); q.dataset = p.dataset; }
    else { q.seed = p.seed !== undefined ? p.seed : unit.rows[0] && unit.rows[0][col(unit, "seed")]; q.config = p.config; q.step = p.step; }
    go(q);
  } });
  var view = h("section", { class: "unit", "data-unit": unit.path }, head.concat([
    h("div", { class: "controls" }, [filter, pol, status]),
    h("div", { class: "controls" }, ["compare ", pa, " with ", pb, " ", side, " on the open " + (unit.kind === "eval" ? "item" : "seed")]),
    h("div", { class: "table-wrap" }, h("table", { class: "rows", "data-kind": unit.kind }, [h("thead", null, h("tr", null, ths)), tbody])),
    more,
    unit.plots && unit.plots.length ? h("div", { class: "plots" }, unit.plots.map(function (p) {
      return h("figure", null, [h("img", { src: p.src, alt: p.name }), h("figcaption", { text: p.name })]);
    })) : null
  ]));
  refresh();
  return view;
}

// The two policies of `compare=A,B`. A label may hold commas itself, so the split is the one
// where both sides are policies of the unit (else the first comma).
function comparePair(unit, value) {
  var known = policiesOf(unit);
  for (var i = value.indexOf(","); i >= 0; i = value.indexOf(",", i + 1)) {
    var a = value.slice(0, i), b = value.slice(i + 1);
    if (known.indexOf(a) >= 0 && known.indexOf(b) >= 0) return [a, b];
  }
  return value.split(",").slice(0, 2);
}

function detailFor(unit, policy, p) {
  var r = findRow(unit, policy, p);
  if (!r) return h("p", { class: "warning", text: "No row for policy " + policy + (unit.kind === "eval" ? ", item " + p.item : ", seed " + p.seed) + " in " + unit.path + "." });
  var n = r[r.length - 1];
  return unit.kind === "eval" ? itemView(unit, n, policy) : episodeView(unit, n, p.step);
}

// Reads the details chunk by chunk (none is kept), stopping at LIMIT hits; a newer route
// stops it. The needle is matched in each detail's JSON text, as the JSON escapes it.
var searchRun = 0;
function searchView(q) {
  var run = searchRun;
  var out = h("div", { class: "search-results", "data-query": q });
  var title = h("h2", { text: "searching for \u201c" + q + "\u201d…" });
  var progress = h("p", { class: "muted search-progress" });
  append(out, [title, progress]);
  var needle = JSON.stringify(q.toLowerCase()).slice(1, -1);
  var hits = 0, LIMIT = 200, rowOf = {};
  units.forEach(function (unit) { unit.rows.forEach(function (r) { rowOf[r[r.length - 1]] = [unit, r]; }); });
  function scan(n, d) {
    var ur = rowOf[n];
    if (!ur || !d || hits >= LIMIT) return;
    var text = JSON.stringify(d), at = text.toLowerCase().indexOf(needle);
    if (at < 0) return;
    hits++;
    var unit = ur[0], r = ur[1];
    var snip = text.slice(Math.max(0, at - 60), at + needle.length + 60).replace(/\\n/g, " ").replace(/\\"/g, "\"");
    var link = rowLink(unit, r);
    out.appendChild(h("div", { class: "hit" }, [
      h("a", { href: hashOf(link), text: unit.path + " · " + link.policy + " · " + (unit.kind === "eval" ? "item " + link.item : "seed " + link.seed) }),
      pre("…" + snip + "…", "snippet")]));
  }
  scanDetails(scan, function () { return run === searchRun && hits < LIMIT; },
    function (k) { progress.textContent = "searching file " + (k + 1) + " of " + CHUNKS.length + "…"; },
    function (k, failed) {
      if (run !== searchRun) return;
      title.textContent = (hits >= LIMIT ? "first " + LIMIT : hits) + " match(es) for \u201c" + q + "\u201d";
      progress.textContent = "searched " + k + " of " + CHUNKS.length + " files";
      if (failed) out.insertBefore(h("p", { class: "warning", text: failed + " of them could not be read: the matches are incomplete (reload the page)" }), progress.nextSibling);
      out.setAttribute("data-done", "1");
      document.body.setAttribute("data-detail-ms", performance.now().toFixed(1));
    });
  return out;
}

var shell = null;
function buildShell() {
  clear(app);
  var search = h("input", { type: "search", id: "search", placeholder: "search messages, replies, traces… (Enter)" });
  search.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { var p = parseHash(); go({ unit: p.unit, q: search.value }); }
  });
  var nav = h("nav", { class: "units" }, units.length > 1 ? units.map(function (u) {
    return h("a", { href: hashOf({ unit: u.path }), "data-unit": u.path, text: u.path + " · " + (u.kind === "eval" ? "eval" : "compare") + " (" + u.rows.length + ")" + (u.simulated ? " · SIMULATION" : "") });
  }) : null);
  var header = h("header", null, [h("h1", { text: "colony view: " + INDEX.title }), h("span", { class: "root", text: INDEX.root + " · " + INDEX.generator }), search]);
  if (INDEX.manifest) header.appendChild(jsonBlock("manifest.json", INDEX.manifest));
  shell = { left: h("div", { class: "left" }), right: h("div", { class: "right", id: "detail" }), nav: nav, search: search };
  append(app, [header, nav, h("div", { class: "split" }, [shell.left, shell.right])]);
}

function route() {
  var p = parseHash();
  CV.openAll = p.open === "1";
  if (!shell) buildShell();
  searchRun++;
  var unit = unitById(p.unit);
  if (!unit) { clear(shell.left).appendChild(h("p", { text: "No units." })); return; }
  var want = tableFromHash(unit, p);
  var same = state.unit === unit && Object.keys(want).every(function (k) { return state[k] === want[k]; });
  if (!same) {
    state.unit = unit;
    Object.keys(want).forEach(function (k) { state[k] = want[k]; });
    clear(shell.left).appendChild(unitView(unit));
    Array.prototype.forEach.call(shell.nav.querySelectorAll("a"), function (a) {
      a.classList.toggle("current", a.getAttribute("data-unit") === unit.path);
    });
  }
  Array.prototype.forEach.call(shell.left.querySelectorAll("tr.open"), function (tr) { tr.classList.remove("open"); });
  var right = clear(shell.right);
  if (p.q !== undefined && p.q !== "") {
    shell.search.value = p.q;
    right.appendChild(searchView(p.q));
  } else if (p.compare) {
    var two = comparePair(unit, p.compare);
    right.appendChild(h("div", { class: "side-by-side" }, two.map(function (pol) {
      return h("div", { class: "side", "data-policy": pol }, detailFor(unit, pol, p));
    })));
  } else if (p.policy) {
    right.appendChild(detailFor(unit, p.policy, p));
    var r = findRow(unit, p.policy, p);
    if (r) {
      var tr = shell.left.querySelector('tr[data-row="' + r[r.length - 1] + '"]');
      if (tr) tr.classList.add("open");
    }
  } else {
    right.appendChild(h("p", { class: "muted", text: "Click a row to see its details; pick two policies to compare them side by side." }));
  }
}

// Served by `colony view --serve`: when the server has a newer report (a run still going),
// reload at once if nothing is open, else offer it in a banner (an open item or search is
// not taken away); the address keeps the view. A failing regeneration is shown too.
if (location.protocol === "http:" || location.protocol === "https:") {
  var liveBanner = null;
  var banner = function (text, cls) {
    if (!liveBanner) { liveBanner = h("p", { class: "warning live" }); app.insertBefore(liveBanner, app.firstChild); }
    liveBanner.className = "warning live " + cls;
    clear(liveBanner);
    append(liveBanner, text);
  };
  setInterval(function () {
    fetch("live.json", { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (j) {
      if (!j) return;
      if (j.error) banner("The report could not be regenerated: " + j.error, "live-error");
      if (!j.generation || j.generation === INDEX.generation) return;
      var p = parseHash();
      if (!p.policy && !p.compare && !p.q) { location.reload(); return; }
      banner(["New results are in. ", h("a", { href: "#", text: "Reload", onclick: function (e) { e.preventDefault(); location.reload(); } })], "live-new");
    }).catch(function () {});
  }, 3000);
}

window.addEventListener("hashchange", function () {
  try { route(); } finally { document.body.setAttribute("data-routed", String(performance.now().toFixed(1))); }
});
try {
  route();
} finally {
  document.body.setAttribute("data-ready-ms", performance.now().toFixed(1));
  document.body.setAttribute("data-ready", "1");
}
