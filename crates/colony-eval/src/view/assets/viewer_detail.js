// colony view: the detail of one item (reasoning) or one episode (embodied).

// ---- reasoning items ----------------------------------------------------------------

function agentNames(unit, r, n) {
  var names = [];
  var st = unit.settings && unit.settings[r.dataset] && unit.settings[r.dataset][r.policy];
  for (var i = 0; i < n; i++) {
    var a = st && st.agents && st.agents[i];
    names.push(a ? a.agent + (a.role ? " (" + a.role + ")" : "") : "agent_" + i);
  }
  return names;
}

// One SelfOrg round as a graph: nodes on a circle (size ~ ψ), edges m → n ("n listens to
// m"), the leader ringed, removed candidate edges dashed.
function selforgGraph(round, names, gold) {
  var psi = round.psi || [];
  var n = psi.length;
  var W = 300, H = 290, cx = 150, cy = 145, R = n > 1 ? 100 : 0;
  var pos = psi.map(function (_, i) {
    var a = -Math.PI / 2 + 2 * Math.PI * i / Math.max(n, 1);
    return [cx + R * Math.cos(a), cy + R * Math.sin(a)];
  });
  var maxPsi = Math.max.apply(null, psi.map(Math.abs).concat([1e-9]));
  var svg = s("svg", { class: "selforg-graph", viewBox: "0 0 " + W + " " + H, width: W, height: H,
    "data-round": round.round, "data-leader": round.leader });
  svg.appendChild(s("defs", null, s("marker", { id: "arrow" + round.round + "-" + Math.random().toString(36).slice(2, 7),
    viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
    s("path", { d: "M0,0 L10,5 L0,10 z", fill: "#546e7a" }))));
  var markerId = svg.querySelector("marker").getAttribute("id");
  function radius(i) { return 9 + 13 * Math.abs(psi[i] || 0) / maxPsi; }
  function edge(e, cls) {
    var a = pos[e[0]], b = pos[e[1]];
    if (!a || !b) return null;
    var dx = b[0] - a[0], dy = b[1] - a[1], len = Math.sqrt(dx * dx + dy * dy) || 1;
    var ra = radius(e[0]) + 2, rb = radius(e[1]) + 3;
    return s("line", { class: cls, x1: a[0] + dx * ra / len, y1: a[1] + dy * ra / len,
      x2: b[0] - dx * rb / len, y2: b[1] - dy * rb / len,
      "marker-end": cls === "edge" ? "url(#" + markerId + ")" : null },
      s("title", { text: names[e[0]] + " → " + names[e[1]] + (cls === "edge" ? "" : " (removed)") }));
  }
  (round.removed || []).forEach(function (e) { var l = edge(e, "removed"); if (l) svg.appendChild(l); });
  (round.edges || []).forEach(function (e) { var l = edge(e, "edge"); if (l) svg.appendChild(l); });
  psi.forEach(function (p, i) {
    var ans = round.answers ? round.answers[i] : null;
    var ok = ans !== null && ans !== undefined && String(ans) === String(gold);
    var g = s("g", { class: "node" + (i === round.leader ? " leader" : ""), "data-agent": i }, [
      s("circle", { cx: pos[i][0], cy: pos[i][1], r: radius(i), class: ok ? "right" : "wrong" }),
      s("text", { x: pos[i][0], y: pos[i][1] + 4, "text-anchor": "middle", class: "idx", text: i }),
      s("text", { x: pos[i][0], y: pos[i][1] + radius(i) + 12, "text-anchor": "middle", class: "lbl",
        text: "ψ " + p.toFixed(2) + " · " + (ans === null || ans === undefined ? "—" : ans) }),
      s("title", { text: names[i] + "\nψ = " + p + "\nanswer: " + ans + (i === round.leader ? "\nleader" : "") })
    ]);
    svg.appendChild(g);
  });
  svg.appendChild(s("text", { x: 6, y: 14, class: "cap", text: "round " + round.round + (round.leader !== undefined ? " · leader " + round.leader : "") }));
  return svg;
}

function selforgView(unit, r, trace) {
  var rounds = trace.rounds || [];
  var n = rounds.length ? (rounds[0].psi || []).length : 0;
  var names = agentNames(unit, r, n);
  return h("section", { class: "selforg" }, [
    h("h3", { text: "SelfOrg graph per round (stop: " + (trace.stop || "?") + ", embedder " + (trace.embedder || "?") + ")" }),
    h("div", { class: "graphs" }, rounds.map(function (rd) { return selforgGraph(rd, names, r.gold); })),
    h("p", { class: "legend-line", text: "Nodes: agents (number; size ∝ ψ contribution; green = right answer). Arrow m → n: n listens to m. Ringed: leader. Dashed: removed edges." }),
    table(["agent"].concat(rounds.map(function (rd) { return "round " + rd.round + " (ψ, answer)"; })),
      names.map(function (name, i) {
        return [i + " " + name].concat(rounds.map(function (rd) {
          return (rd.psi && rd.psi[i] !== undefined ? rd.psi[i].toFixed(3) : "") + " · " + fmt(rd.answers ? rd.answers[i] : null) + (rd.leader === i ? " ★" : "");
        }));
      }))
  ]);
}

function swarmsysView(trace) {
  var profiles = trace.profiles || [];
  var rounds = trace.rounds || [];
  return h("section", { class: "swarmsys" }, [
    h("h3", { text: "SwarmSys: " + profiles.length + " profiles, " + rounds.length + " round(s), stop: " + (trace.stop || "?") }),
    table(["agent", "role", "exploration", "accepted/submitted", "recent success", "pheromone", "ability"],
      profiles.map(function (p) {
        var perf = p.performance || {};
        return [p.agent_id, p.role, p.exploration_rate, fmt(perf.accepted) + "/" + fmt(perf.submitted),
          perf.recent_success, p.pheromone_trace_norm, (p.ability_description || "").slice(0, 120)];
      }), "small profiles"),
    h("h4", { text: "Matches per round" }),
    table(["round", "open events", "matches (event ← agent, role)", "drawn", "answers"],
      rounds.map(function (rd) {
        var m = matchesText(rd.matches);
        var drawn = rd.drawn ? Object.keys(rd.drawn).map(function (k) { return k + "→" + rd.drawn[k]; }).join(" ") : "";
        return [rd.round, fmt(rd.open), m, drawn, fmt(rd.answers)];
      }), "small matches")
  ]);
}

// A round's matches: a list of {event, agent, role} (embodied) or, in reasoning SwarmSys,
// an object event -> {role: [agents]}; anything else shows as nothing.
function matchesText(matches) {
  if (Array.isArray(matches)) {
    return matches.map(function (x) { return x.event + " ← " + x.agent + " (" + x.role + ")" + (x.over_capacity ? " over capacity" : ""); }).join("; ");
  }
  if (!matches || typeof matches !== "object") return "";
  return Object.keys(matches).map(function (ev) {
    var roles = matches[ev] || {};
    if (typeof roles !== "object") return ev + " ← " + String(roles);
    return ev + " ← " + Object.keys(roles).map(function (r) {
      var who = roles[r];
      return r + ": " + (Array.isArray(who) ? who.join(", ") : String(who));
    }).join("; ");
  }).join(" | ");
}

function messagesView(messages) {
  return h("div", { class: "messages" }, (messages || []).map(function (m) {
    return h("div", { class: "msg role-" + m.role }, [h("span", { class: "role", text: m.role }), pre(m.content)]);
  }));
}

function usageText(u) {
  return u ? (u.prompt_tokens || 0) + "+" + (u.completion_tokens || 0) + " tok" : "";
}

// The tool calls a model call made (ToolExchange of crates/colony-llm/src/tools.rs): its
// children, in order, each with its arguments and what the model was told.
function toolsView(tools) {
  return (tools || []).map(function (t) {
    var call = t.call || {};
    var fn = call.function || {};
    var badge = t.error ? h("span", { class: "badge err", text: "tool " + t.error }) : h("span", { class: "badge tool", text: "tool" });
    var ms = t.elapsed_us !== undefined ? (t.elapsed_us / 1000).toFixed(1) + " ms" : "";
    return h("div", { class: "entry tool" }, [badge, " " + (t.tool || fn.name || "?") + " · " + ms,
      pre(fn.arguments || "", "inline"), h("div", { class: "reply" }, [h("span", { class: "role", text: "result" }), pre(t.result)])]);
  });
}

// One transcript entry (TranscriptEntry of crates/colony-runtime/src/transcript.rs).
function entryView(e) {
  var ev = e.event || {};
  var who = e.agent + " #" + e.seq;
  if (ev.kind === "call") {
    var ms = ev.latency !== undefined ? (ev.latency / 1000).toFixed(1) + " ms" : "";
    return lazyDetails([h("span", { class: "badge call", text: "call" }), " " + who + (ev.tag ? " · " + ev.tag : "") +
      " · " + ev.model + " · " + usageText(ev.usage) + " · " + ms + " · " + fmt(ev.finish_reason)],
      function () { return [messagesView(ev.request && ev.request.messages)].concat(toolsView(ev.tools), [h("div", { class: "reply" }, [h("span", { class: "role", text: "reply" }), pre(ev.text)])]); },
      CV.openAll, "entry call");
  }
  if (ev.kind === "failure") {
    return lazyDetails([h("span", { class: "badge err", text: "failed" }), " " + who + (ev.tag ? " · " + ev.tag : "") + " · " + ev.model + ": " + ev.error],
      function () { return messagesView(ev.request && ev.request.messages); }, CV.openAll, "entry failure");
  }
  if (ev.kind === "message") {
    return h("div", { class: "entry message" }, [h("span", { class: "badge msg", text: "message" }), " " + ev.from + " → " + ev.to + ": ", pre(ev.text, "inline")]);
  }
  return h("div", { class: "entry other" }, [h("span", { class: "badge", text: ev.kind || "?" }), " " + who]);
}

function itemView(unit, n, policy) {
  return withDetail(n, function (d) { return itemDetail(unit, d); });
}

function itemDetail(unit, d) {
  var r = d.result, trace = d.trace || {};
  var out = h("div", { class: "item-detail", "data-policy": r.policy, "data-item": r.id });
  append(out, [
    h("h2", null, [r.policy + " · " + r.dataset + " #" + r.id + " ",
      h("span", { class: "badge " + (r.error ? "err" : r.correct ? "ok" : "bad"), text: r.error ? "error" : r.correct ? "correct" : "wrong" })]),
    kv([["answer", r.answer], ["gold", r.gold], ["calls", r.calls], ["failed calls", r.failed_calls],
      ["prompt tokens", r.prompt_tokens], ["completion tokens", r.completion_tokens], ["wall ms", r.wall_ms], ["error", r.error]]),
    notesBox(d.notes)
  ]);
  if (trace.errors && trace.errors.length) append(out, h("p", { class: "warning", text: "trace errors: " + fmt(trace.errors) }));
  if (trace.method === "selforg" && trace.rounds) append(out, selforgView(unit, r, trace));
  if (trace.method === "swarmsys") append(out, swarmsysView(trace));
  append(out, jsonBlock("policy trace (JSON)", trace));
  if (d.entries && d.entries.length) {
    var calls = d.entries.filter(function (e) { return e.event && e.event.kind === "call"; }).length;
    append(out, h("h3", { text: "Transcript: " + d.entries.length + " entries, " + calls + " calls" }));
    append(out, h("div", { class: "entries" }, d.entries.map(entryView)));
  } else if (!d.has_calls) {
    append(out, h("p", { class: "muted", text: "This run has no calls/" + r.policy + ".jsonl: messages and replies are not recorded; the trace is all there is." }));
  } else {
    append(out, h("p", { class: "muted", text: "No transcript entries recorded for this item." }));
  }
  return out;
}

// ---- embodied episodes --------------------------------------------------------------

function decodeFrames(frames) {
  var out = [], prev = null;
  (frames || []).forEach(function (f) {
    var grid = (f[1] || []).map(function (row, i) { return row === null ? (prev ? prev.grid[i] : "") : row; });
    prev = { text: f[0] || [], grid: grid };
    out.push(prev);
  });
  return out;
}

function legendMap(unit) {
  var m = {};
  (unit.legend || []).forEach(function (e, i) { e.chars.split("").forEach(function (c) { m[c] = i; }); });
  return m;
}

// A column ruler (CUBE draws one: digits, one per cell) is drawn as the grid's first row, in
// the grid's own font and spacing, so that it lines up with the cells; elsewhere it would sit
// in the status text with other spacing.
function isRuler(line, frame) {
  var t = line.trim();
  return /^[0-9]+$/.test(t) && frame.grid.length > 0 && t.length === frame.grid[0].length;
}

function gridView(unit, frame, step) {
  var lm = legendMap(unit);
  var g = h("div", { class: "grid", "data-step": step });
  frame.text.filter(function (l) { return isRuler(l, frame); }).forEach(function (l) {
    g.appendChild(h("div", { class: "ruler", text: l.trim() }));
  });
  frame.grid.forEach(function (row) {
    var line = h("div", { class: "row" });
    var i = 0;
    while (i < row.length) {
      var c = row[i], j = i + 1;
      while (j < row.length && row[j] === c) j++;
      var k = Object.prototype.hasOwnProperty.call(lm, c) ? lm[c] : "x";
      line.appendChild(h("span", { class: "cell-" + k, text: row.slice(i, j) }));
      i = j;
    }
    g.appendChild(line);
  });
  return g;
}

function legendView(unit) {
  return h("div", { class: "legend" }, (unit.legend || []).map(function (e, i) {
    return h("span", { class: "key" }, [h("span", { class: "cell-" + i, text: e.chars.slice(0, 3) }), " " + e.label]);
  }));
}

function callLogView(c) {
  var flags = [];
  if (c.error) flags.push(h("span", { class: "badge err", text: "failed" }));
  if (c.parse_error) flags.push(h("span", { class: "badge warn", text: "fallback" }));
  return lazyDetails(flags.concat([" " + c.agent + " · " + c.purpose + " · " + usageText(c.usage) + " · " +
    fmt(c.latency_ms) + " ms" + (c.retries ? " · " + c.retries + " retries" : "") + (c.action ? " → " + c.action.split("\n")[0] : "")]),
  function () {
    return [messagesView(c.messages), h("div", { class: "reply" }, [h("span", { class: "role", text: "reply" }), pre(c.reply)]),
      c.parse_error ? h("p", { class: "warning", text: "parse fallback: " + c.parse_error }) : null,
      c.error ? h("p", { class: "warning", text: "error: " + c.error }) : null];
  }, CV.openAll, "entry call");
}

function stepView(unit, d, frames, step, byStep) {
  var rec = d.steps[step];
  var out = [];
  if (frames[step]) {
    out.push(pre(frames[step].text.filter(function (l) { return !isRuler(l, frames[step]); }).join("\n"), "status"));
    out.push(gridView(unit, frames[step], step));
  } else {
    out.push(h("p", { class: "muted grid-missing", "data-step": step, text: "No picture for step " + step + " (see the warnings and notes above)." }));
  }
  if (rec) {
    out.push(h("h4", { text: "Step " + rec.step + ": actions (score after: " + fmt(rec.score) + ")" }));
    if (!Object.keys(rec.actions || {}).length) out.push(h("p", { class: "muted", text: "No agent named an action this step (each took the no-op or kept executing its current one)." }));
    else out.push(table(["agent", "action", "reward"], Object.keys(rec.actions || {}).map(function (a) {
      return [a, h("pre", { class: "inline action", text: rec.actions[a] }), rec.rewards ? rec.rewards[a] : ""];
    }), "small actions"));
    if (rec.events && rec.events.length) out.push(jsonBlock(rec.events.length + " event(s)", rec.events));
    if (rec.trace) out.push(jsonBlock("policy trace of this step", rec.trace));
  } else {
    out.push(h("p", { class: "muted", text: step >= d.steps.length ? "End of the episode (" + d.steps.length + " steps)." : "No step record." }));
  }
  var calls = byStep[step] || [];
  if (calls.length) {
    out.push(h("h4", { text: calls.length + " model call(s) at this step" }));
    out.push(h("div", { class: "entries" }, calls.map(callLogView)));
  }
  return out;
}

function episodeView(unit, n, startStep) {
  return withDetail(n, function (d) { return episodeDetail(unit, d, startStep); });
}

function episodeDetail(unit, d, startStep) {
  var r = d.result;
  var frames = decodeFrames(d.frames);
  var byStep = {};
  (d.calls || []).forEach(function (c) { (byStep[c.step] = byStep[c.step] || []).push(c); });
  var last = Math.max(d.steps.length, frames.length - 1, 0);
  var step = Math.min(Math.max(parseInt(startStep, 10) || 0, 0), last);
  var out = h("div", { class: "episode-detail", "data-policy": r.policy, "data-seed": r.seed, "data-env": unit.env });
  var slider = h("input", { type: "range", min: 0, max: last, value: step, class: "slider" });
  var label = h("span", { class: "step-label" });
  var body = h("div", { class: "step-body" });
  var timer = null;
  var play = h("button", { type: "button", class: "play", text: "▶ play" });
  function show(k, fromUser) {
    step = Math.min(Math.max(k, 0), last);
    slider.value = step;
    label.textContent = "step " + step + " / " + last;
    clear(body);
    append(body, stepView(unit, d, frames, step, byStep));
    if (fromUser) CV.replaceParam("step", step);
  }
  slider.addEventListener("input", function () { show(parseInt(slider.value, 10), true); });
  play.addEventListener("click", function () {
    if (timer) { clearInterval(timer); timer = null; play.textContent = "▶ play"; return; }
    if (step >= last) show(0, true);
    play.textContent = "⏸ pause";
    timer = setInterval(function () {
      if (!out.isConnected || step >= last) { clearInterval(timer); timer = null; play.textContent = "▶ play"; return; }
      show(step + 1, true);
    }, 400);
  });
  append(out, [
    h("h2", { text: r.policy + " · seed " + r.seed + (r.config ? " · " + r.config : "") }),
    kv([["score", r.score], ["steps", r.steps], ["terminated", r.terminated], ["truncated", r.truncated], ["calls", r.calls],
      ["failed calls", r.failed_calls], ["tokens", r.prompt_tokens + r.completion_tokens], ["fallbacks", r.fallbacks],
      ["wall s", r.wall_s], ["error", r.error], ["metrics", Object.keys(r.metrics || {}).length ? r.metrics : null]]),
    notesBox(d.notes, d.warnings),
    h("div", { class: "player" }, [
      h("button", { type: "button", text: "◀", onclick: function () { show(step - 1, true); } }), play,
      h("button", { type: "button", text: "▶", onclick: function () { show(step + 1, true); } }), slider, label]),
    legendView(unit),
    body
  ]);
  show(step, false);
  return out;
}
