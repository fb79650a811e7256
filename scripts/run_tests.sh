#!/usr/bin/env bash
# Builds (via bootstrap.sh) and runs the whole test suite. GPU tests skip cleanly without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
start=$(date +%s)
ctest --test-dir "${FA2BENCH_BUILD_DIR:-build}" --output-on-failure -j "${FA2BENCH_JOBS:-$(nproc)}"
echo "tests: finished in $(( $(date +%s) - start ))s"
