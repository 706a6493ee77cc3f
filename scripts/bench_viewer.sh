#!/usr/bin/env bash
# Benchmark of `colony view` on a synthetic 10,000-item reasoning run (SelfOrg-shaped traces
# and one recorded call per item in calls/<policy>.jsonl): page generation time, page size,
# and the times to first render in headless Chromium (the page's performance.now() when ready,
# `data-ready-ms` on <body>), for the plain table, a deep link into one item, and a search.
#
# Usage: scripts/bench_viewer.sh [ITEMS] [COLONY_BINARY]   (default 10000, target/debug/colony)
set -euo pipefail
cd "$(dirname "$0")/.."
items="${1:-10000}"
bin="${2:-target/debug/colony}"
browser="${COLONY_CHROMIUM:-/usr/bin/chromium}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
run="$work/run"
mkdir -p "$run/calls"

python3 - "$run" "$items" <<'PY'
import json, random, sys
run, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(0)
with open(f"{run}/selforg.jsonl", "w") as items, open(f"{run}/calls/selforg.jsonl", "w") as calls:
    for i in range(n):
        gold = str(rng.randint(1, 500))
        answers = [gold if rng.random() < 0.7 else str(rng.randint(1, 500)) for _ in range(4)]
        rounds = []
        for t in range(3):
            psi = [round(rng.random(), 4) for _ in range(4)]
            leader = max(range(4), key=lambda k: psi[k])
            edges = sorted({(leader, k) for k in range(4) if k != leader and rng.random() < 0.7})
            rounds.append({"round": t, "answers": answers, "psi": psi, "edges": edges, "removed": [],
                           "order": list(range(4)), "leader": leader, "nstar": leader, "all_empty": False,
                           "s": [[round(rng.random(), 3) for _ in range(4)] for _ in range(4)]})
        answer = max(set(answers), key=answers.count)
        items.write(json.dumps({"id": str(i), "policy": "selforg", "dataset": "gsm8k", "answer": answer,
            "gold": gold, "correct": answer == gold, "error": None, "failed_calls": 0, "calls": 12,
            "prompt_tokens": 2100 + i % 100, "completion_tokens": 600, "wall_ms": 50.0 + i % 17,
            "trace": {"method": "selforg", "embedder": "hashing-v1-512", "embed": "full", "errors": [],
                      "rounds": rounds, "stop": "max_rounds", "answer": answer}}) + "\n")
        entry = {"agent": "agent_0", "seq": 0, "event": {"kind": "call", "model": "sim",
            "request": {"messages": [{"role": "system", "content": "You are a mathematician."},
                                     {"role": "user", "content": f"Question {i}: what is {gold} minus 0? " * 4}]},
            "text": f"Let me think step by step about item {i}. " * 8 + f"The answer is {answer}.",
            "finish_reason": "stop", "usage": {"prompt_tokens": 180, "completion_tokens": 50}, "latency": 1200}}
        calls.write(json.dumps({"dataset": "gsm8k", "id": str(i), "policy": "selforg",
                                "entries": [dict(entry, seq=s) for s in range(4)]}) + "\n")
with open(f"{run}/summary.json", "w") as f:
    f.write("{}")
PY

echo "run: $items items, $(du -sh "$run" | cut -f1) on disk"
start=$(date +%s.%N)
"$bin" view "$run" --out "$work/report.html"
end=$(date +%s.%N)
echo "generation: $(python3 -c "print(f'{$end - $start:.2f}')") s wall ($bin)"
echo "index page: $(stat -c %s "$work/report.html") bytes; data folder: $(du -sb "$work/report.data" | cut -f1) bytes"

if [ ! -x "$browser" ]; then
  echo "SKIPPED browser timing: no Chromium at $browser"
  exit 0
fi
load() {
  local hash="$1" profile
  profile="$(mktemp -d)"
  local t0 t1 dom
  t0=$(date +%s.%N)
  # --virtual-time-budget waits for details and searches (they load after the load event);
  # the page clock becomes virtual, so the time is the whole Chromium process, start-up included.
  dom="$("$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --virtual-time-budget=60000 \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --dump-dom "file://$work/report.html$hash" 2>/dev/null)"
  t1=$(date +%s.%N)
  rm -rf "$profile"
  local ready detail errors rows
  ready="$(grep -o 'data-ready-ms="[0-9.]*"' <<<"$dom" | head -1 | cut -d'"' -f2 || true)"
  detail="$(grep -o 'data-detail-ms="[0-9.]*"' <<<"$dom" | head -1 | cut -d'"' -f2 || true)"
  errors="$(grep -c 'id="js-errors" class="shown"' <<<"$dom" || true)"
  rows="$(grep -o '<tr data-row=' <<<"$dom" | wc -l || true)"
  echo "  ${hash:-(table)}: rendered in $(python3 -c "print(f'{$t1 - $t0:.2f}')") s (whole chromium process); detail drawn: ${detail:+yes}; rows drawn ${rows}; js errors ${errors}"
}
echo "time to first render (headless Chromium):"
load ""
load "#unit=.&policy=selforg&item=9999"
load "#q=item%209876."
