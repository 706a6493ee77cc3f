#!/usr/bin/env bash
# Builds examples/plugin's Python wheel (colony's Python package with the plugin's registry
# compiled in) from a copy outside the repository, the way a user starts their own: the
# folder examples/plugin/python plus a copy of colony's python/colony, path dependencies
# pointed back at this checkout. Installs it into a fresh venv and runs its pytest tests.
# Uses the shared target dir and the dev profile (set MATURIN_PEP517_ARGS to change).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/my-plugin"
cp -r "$root/examples/plugin/." "$work/my-plugin/"
rm -rf "$work/my-plugin/target" "$work/my-plugin/python/target"
cp -r "$root/python/colony" "$work/my-plugin/python/colony"
sed -i \
  -e "s#path = \"\\.\\./\\.\\./environments/api\"#path = \"$root/environments/api\"#" \
  -e "s#path = \"\\.\\./\\.\\.\"#path = \"$root\"#" \
  "$work/my-plugin/Cargo.toml"
sed -i -e "s#path = \"\\.\\./\\.\\./\\.\\./python\"#path = \"$root/python\"#" \
  "$work/my-plugin/python/Cargo.toml"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check pytest
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" \
  MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:---profile dev}" \
  "$work/venv/bin/pip" install --quiet --disable-pip-version-check "$work/my-plugin/python"
cd "$work"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$work/my-plugin/python/tests"
echo "the plugin's Python wheel builds and passes its tests outside the repository"
