#!/usr/bin/env bash
# Builds fa2bench on a GPU machine that lacks the Debian header packages: they travel
# unpacked under .carry/deps (apt-get download + dpkg -x, see README "Development").
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
build=${FA2BENCH_BUILD_DIR:-build-h200}
start=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$PWD/.carry/deps/usr" >/dev/null
cmake --build "$build" -j "$(nproc)"
echo "build: $(( $(date +%s) - start ))s"
