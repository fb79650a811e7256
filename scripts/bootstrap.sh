#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One-step set-up on a fresh Debian/Ubuntu machine: installs the missing build packages,
# configures and builds fa2bench into ./build (Release). Safe to re-run: it only rebuilds.
#
#   FA2BENCH_CUDA_ARCHS  CUDA architectures to build, CMake syntax ("90", "86;90", "native");
#                        default: CMakeLists.txt's list, every GPU from Ampere on (sm_80, 86,
#                        89, 90, and 100, 120 where nvcc has them; PTX for the newest);
#                        "none" builds the CPU target only.
#   FA2BENCH_BUILD_DIR   build directory (default: build)
#   FA2BENCH_JOBS        parallel build jobs (default: number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libcli11-dev libfmt-dev nlohmann-json3-dev googletest libgtest-dev
          libre2-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The CUDA Toolkit lives outside Debian's packages; use it where it is installed.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

build_dir=${FA2BENCH_BUILD_DIR:-build}
jobs=${FA2BENCH_JOBS:-$(nproc)}
archs=${FA2BENCH_CUDA_ARCHS:-}
if [ -n "$archs" ]; then
  cuda_flags=(-DCMAKE_CUDA_ARCHITECTURES="$archs")
else
  # Drop an earlier run's cached choice so CMakeLists.txt's default list applies.
  cuda_flags=(-UCMAKE_CUDA_ARCHITECTURES)
  archs=default
fi
if [ "$archs" = "none" ] || ! command -v nvcc >/dev/null 2>&1; then
  echo "bootstrap: building the CPU target only (no nvcc, or FA2BENCH_CUDA_ARCHS=none)"
  cuda_flags=(-DFA2BENCH_WITH_CUDA=OFF)
fi

start=$(date +%s)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda_flags[@]}" >/dev/null
cmake --build "$build_dir" -j "$jobs"
[ "$archs" = default ] && archs=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
echo "bootstrap: built $build_dir/fa2bench in $(( $(date +%s) - start ))s (CUDA archs: ${archs:-none})"
