#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds (via bootstrap.sh) and runs the whole test suite. GPU tests skip cleanly without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests build into a directory of their own (build-tests), for two CUDA architectures
# (sm_80 and sm_90: the portable kernels' oldest target and the Hopper-only ones) unless
# FA2BENCH_CUDA_ARCHS says otherwise. Every kernel instantiation is compiled and every test
# runs, in about two thirds of the time of the main job's build of every architecture
# (docs/build.md, "Compile time"), and build/ (the main job's binary) is left alone.
export FA2BENCH_BUILD_DIR=${FA2BENCH_BUILD_DIR:-build-tests}
export FA2BENCH_CUDA_ARCHS=${FA2BENCH_CUDA_ARCHS:-80-real;90-real}
scripts/bootstrap.sh
# The Slurm test (slurm.sweep_array_merge) starts a single-node Slurm: slurm-wlm and munge on
# Debian/Ubuntu. Where they cannot be installed the test skips and says why.
# FA2BENCH_NO_SLURM_INSTALL=1 leaves the machine's packages alone.
if [ -z "${FA2BENCH_NO_SLURM_INSTALL:-}" ] && command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in slurm-wlm munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "run_tests: installing ${missing[*]} for the Slurm test"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    { $sudo_cmd apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
      echo "run_tests: could not install ${missing[*]}; the Slurm test will skip"
  fi
fi
start=$(date +%s)
ctest --test-dir "${FA2BENCH_BUILD_DIR:-build}" --output-on-failure -j "${FA2BENCH_JOBS:-$(nproc)}"
echo "tests: finished in $(( $(date +%s) - start ))s"
