#!/usr/bin/env bash
# Benchmark: a suite as a 4-task Slurm job array, each shard with its own
# `serve-mock --latency-ms 100` endpoint and C calls in flight, against one process that
# reaches the same 4 endpoints (a models.toml pool) with the same total concurrency 4·C.
# Needs a running Slurm (.ci/slurm-local.sh). Usage: scripts/bench_slurm.sh [ITEMS] [C]
# Prints both wall times and their ratio (sharded / one process; the ideal is 1.0, the
# target ≤ 1.1). The sharded time runs from sbatch to the end of `colony merge`.
set -euo pipefail
ITEMS=${1:-400}
C=${2:-2}
BIN=${COLONY_BIN:-$PWD/target/debug/colony}
W=$(mktemp -d /tmp/colony-bench-slurm.XXXX)
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
# A GSM8K file of ITEMS items (the bundled sample's questions, ids made unique).
python3 - "$ITEMS" > "$W/gsm8k.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open("environments/qa/samples/gsm8k.jsonl")]
for i in range(int(sys.argv[1])):
    r = dict(rows[i % len(rows)])
    r["question"] = f"(#{i}) " + r["question"]
    print(json.dumps(r))
PY
URLS=()
for i in 0 1 2 3; do
  "$BIN" serve-mock --latency-ms 100 > "$W/mock$i.url" 2>/dev/null &
  for _ in $(seq 50); do [ -s "$W/mock$i.url" ] && break; sleep 0.1; done
  URLS+=("$(head -1 "$W/mock$i.url")")
done
cat > "$W/suite.toml" <<TOML
name = "bench-slurm"
policies = ["single"]
models = ["pool"]
items_in_flight = 256
[[datasets]]
name = "gsm8k"
data = "$W/gsm8k.jsonl"
TOML
cat > "$W/models.toml" <<TOML
[models.pool]
model = "mock"
base_urls = ["${URLS[0]}", "${URLS[1]}", "${URLS[2]}", "${URLS[3]}"]
max_concurrency = $C
TOML
# Each array task talks to its own endpoint: the pool's URL of its index.
cat > "$W/job.sh" <<JOB
#!/bin/bash
set -e
URLS=(${URLS[*]})
trap 'echo "end \$(date +%s.%N)"' EXIT
"$BIN" --models-config "$W/models.toml" run "$W/suite.toml" --out "$W/sharded" --quiet \\
  --model pool --base-url "\${URLS[\$SLURM_ARRAY_TASK_ID]}" --concurrency $C
JOB
chmod +x "$W/job.sh"
t0=$(date +%s.%N)
sbatch --wait --array=0-3 --chdir "$PWD" --output "$W/task-%a.log" "$W/job.sh" >/dev/null
t_wait=$(date +%s.%N)
"$BIN" merge "$W/merged" "$W"/sharded/shard-*-of-4 >/dev/null
t_merge=$(date +%s.%N)
t_last=$(grep -h '^end ' "$W"/task-*.log | awk '{print $2}' | sort -n | tail -1)
t1=$(date +%s.%N)
"$BIN" --models-config "$W/models.toml" run "$W/suite.toml" --out "$W/single" --quiet --no-shard >/dev/null
t2=$(date +%s.%N)
python3 - "$t0" "$t_last" "$t_wait" "$t_merge" "$t1" "$t2" "$ITEMS" "$C" <<'PY'
import sys
t0, t_last, t_wait, t_merge, t1, t2 = map(float, sys.argv[1:7])
merge = t_merge - t_wait
sharded = (t_last - t0) + merge
single = t2 - t1
print(f"items {sys.argv[7]}, latency 100 ms, {sys.argv[8]} in flight per endpoint, 4 endpoints")
print(f"4-shard Slurm array: submit to last task's end {t_last - t0:.2f} s, merge {merge:.2f} s")
print(f"  (sbatch --wait itself returned after {t_wait - t0:.2f} s: it polls the controller)")
print(f"one process, same 4 endpoints, same total concurrency: {single:.2f} s")
print(f"ratio (array + merge) / one process: {sharded / single:.3f} (ideal 1.0, target <= 1.1)")
PY
