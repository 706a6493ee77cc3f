#!/usr/bin/env bash
# Benchmark of `colony view` on a synthetic 10,000-item reasoning run (SelfOrg-shaped traces
# and four recorded calls per item in calls/<policy>.jsonl), measured by bench_view_run.sh:
# generation time, sizes, and render times in headless Chromium for the plain table, a deep
# link into one item, and a search.
#
# Usage: scripts/bench_viewer.sh [ITEMS] [COLONY_BINARY]   (default 10000, target/release/colony)
set -euo pipefail
cd "$(dirname "$0")/.."
items="${1:-10000}"
bin="${2:-target/release/colony}"
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

COLONY="$bin" scripts/bench_view_run.sh "$run" "#unit=.&policy=selforg&item=9999" "#q=item%209876."
