#!/usr/bin/env bash
# Benchmark of `colony view` on an existing run directory: generation time,
# the index page's size, the data folder's size and largest file, and in headless Chromium,
# per address, the whole browser process's wall time until the page (and any deep-linked
# detail or search) has rendered, start-up included, and whether the detail was drawn.
#
# Usage: scripts/bench_view_run.sh RUN_DIR [HASH ...] (COLONY=target/release/colony by default)
set -euo pipefail
run="$1"; shift
bin="${COLONY:-target/release/colony}"
browser="${COLONY_CHROMIUM:-/usr/bin/chromium}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "run: $run, $(du -sh "$run" | cut -f1) on disk"
start=$(date +%s.%N)
"$bin" view "$run" --out "$work/report.html"
end=$(date +%s.%N)
echo "generation: $(python3 -c "print(f'{$end - $start:.2f}')") s wall ($bin)"
data="$(ls -d "$work"/report.data/g-*)"   # this generation's folder
largest="$(ls -S "$data" | head -1)"
echo "index page: $(stat -c %s "$work/report.html") bytes; data folder: $(du -sb "$data" | cut -f1) bytes in $(ls "$data" | wc -l) files, largest $largest at $(stat -c %s "$data/$largest") bytes"
[ -x "$browser" ] || { echo "SKIPPED browser timing: no Chromium at $browser"; exit 0; }
load() {
  local hash="$1" profile dom t0 t1
  profile="$(mktemp -d)"
  t0=$(date +%s.%N)
  # --virtual-time-budget lets the dump wait for the details, which load and inflate after
  # the page's load event; it makes the page's clock virtual, so the detail's time is the
  # whole Chromium process (start-up included: an upper bound), measured from outside.
  dom="$("$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --virtual-time-budget=30000 \
    --user-data-dir="$profile" --dump-dom "file://$work/report.html$hash" 2>/dev/null)"
  t1=$(date +%s.%N)
  rm -rf "$profile"
  local ready detail errors rows
  ready="$(grep -o 'data-ready-ms="[0-9.]*"' <<<"$dom" | head -1 | cut -d'"' -f2 || true)"
  detail="$(grep -o 'data-detail-ms="[0-9.]*"' <<<"$dom" | head -1 | cut -d'"' -f2 || true)"
  errors="$(grep -c 'id="js-errors" class="shown"' <<<"$dom" || true)"
  rows="$(grep -o '<tr data-row=' <<<"$dom" | wc -l || true)"
  echo "  ${hash:-(table)}: rendered in $(python3 -c "print(f'{$t1 - $t0:.2f}')") s (whole chromium process); table drawn: ${ready:+yes}; detail drawn: ${detail:+yes}; rows ${rows}; js errors ${errors}"
}
echo "render (headless Chromium):"
load ""
for h in "$@"; do load "$h"; done
