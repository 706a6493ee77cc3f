#!/usr/bin/env bash
# Memory of a replay from a large record cache: records the GSM8K sample
# with single and selforg on the simulated model, grows the cache to SIZE_GB with filler
# records of fresh keys (the real ones first), and replays the run from the small and the big
# cache, printing peak RSS and wall time of each and checking that the results agree.
#
# Usage: scripts/bench_replay_memory.sh [SIZE_GB] [COLONY_BINARY]   (default 3, target/release/colony)
set -euo pipefail
cd "$(dirname "$0")/.."
size="${1:-3}"
bin="${2:-target/release/colony}"
data="$PWD/environments/qa/samples/gsm8k.jsonl"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin" eval --dataset gsm8k --data "$data" --policy single,selforg --record "$work/small" \
  --out "$work/recorded" --quiet >/dev/null
mkdir -p "$work/big"
python3 - "$work/small/calls.jsonl" "$work/big/calls.jsonl" "$size" <<'PY'
import hashlib, re, sys
src, dst, gb = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = open(src).read().splitlines()
pat = re.compile(r'"key":"[0-9a-f]{64}"')
size, i = 0, 0
with open(dst, "w") as out:
    for l in lines:
        out.write(l + "\n"); size += len(l) + 1
    buf = []
    while size < gb * 1024**3:
        l = pat.sub('"key":"%s"' % hashlib.sha256(str(i).encode()).hexdigest(), lines[i % len(lines)], count=1)
        buf.append(l); size += len(l) + 1; i += 1
        if len(buf) >= 10000:
            out.write("\n".join(buf) + "\n"); buf = []
    if buf:
        out.write("\n".join(buf) + "\n")
print(f"cache: {len(lines) + i} records, {size / 1024**3:.2f} GiB")
PY
for c in small big; do
  /usr/bin/time -f "replay from the $c cache: peak RSS %M KB, wall %e s" \
    "$bin" eval --dataset gsm8k --data "$data" --policy single,selforg --replay "$work/$c" \
    --out "$work/out-$c" --quiet >/dev/null
done
python3 - "$work/out-small/summary.json" "$work/out-big/summary.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["policies"] for p in sys.argv[1:])
for p in a:
    for k in ("correct", "calls", "prompt_tokens", "accuracy"):
        assert a[p].get(k) == b[p].get(k), (p, k)
print("the two replays give the same results")
PY
