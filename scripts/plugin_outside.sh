#!/usr/bin/env bash
# Builds examples/plugin from a copy outside the repository, its two path dependencies pointed
# back at this checkout (the way a user starts their own plugin crate), then runs its binary:
# `env list` must list spread-v0 and a short comparison must run. Uses the shared target dir.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples/plugin" "$work/my-plugin"
rm -rf "$work/my-plugin/target"
sed -i \
  -e "s#path = \"\\.\\./\\.\\./environments/api\"#path = \"$root/environments/api\"#" \
  -e "s#path = \"\\.\\./\\.\\.\"#path = \"$root\"#" \
  "$work/my-plugin/Cargo.toml"
cd "$work/my-plugin"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cargo build --quiet
bin="$CARGO_TARGET_DIR/debug/colony-plugin-demo"
"$bin" env list | grep -q spread-v0
"$bin" compare --env spread-v0 --policies demo_nearest:k=5,scripted:heuristic --seeds 0..2 \
  --quiet --out "$work/run" >/dev/null
test -s "$work/run/summary.json"
echo "plugin crate builds and runs outside the repository"
