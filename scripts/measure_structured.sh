#!/usr/bin/env bash
# The share of action replies an environment could not use (its fallback), with and without
# structured output, for the `independent` policy on CUBE and Wildfire against a real model.
#
# Usage: scripts/measure_structured.sh COLONY MODELS_TOML
#   COLONY       the colony binary
#   MODELS_TOML  a models.toml whose default model is the server to measure (for the README's
#                figures: llama-server with SmolLM2-135M, `.ci/local-llm.sh start PORT`)
# Prints one line per run: environment, policy, deciding replies, fallbacks, share.
set -euo pipefail
colony="$1" models="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
run() { # env, policy, extra flags…
  local env="$1" policy="$2"; shift 2
  local out="$tmp/$env-${policy//[:=]/_}"
  "$colony" --models-config "$models" compare --env "$env" --policies "$policy" \
    --seeds 0..2 "$@" --out "$out" --quiet >/dev/null
  python3 - "$out" "$env" "$policy" <<'PY'
import glob, json, sys
out, env, policy = sys.argv[1:4]
deciding = fallbacks = 0
for f in glob.glob(f"{out}/episodes/*/*/calls.jsonl"):
    for line in open(f):
        c = json.loads(line)
        if c.get("action") is not None:
            deciding += 1
            fallbacks += c.get("parse_error") is not None
share = fallbacks / deciding if deciding else float("nan")
print(f"{env}\t{policy}\t{deciding} deciding replies\t{fallbacks} fallbacks\t{share:.0%}")
PY
}
for policy in independent independent:structured=true; do
  run cube "$policy" --set n=2 --max-steps 8 --max-tokens 200 --log-calls full
  run wildfire "$policy" --max-steps 4 --max-tokens 120 --log-calls full
done
