#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Here (no GPU): builds fa2bench and its GPU tests in BUILD (default build-cuda, configured for
# sm_90) and carries them to the GPU machine stripped and gzipped under .carry/bin, so a device
# call can skip its ~80 s build (scripts/gpu/unpack_bin.sh there). The carried binaries load
# RE2 from .carry/deps and cuDNN from PyTorch's wheel (env.sh), like a build made there.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-cuda}
# Host code matters on the GPU machine too: the float64 references of the GPU tests and of
# every sweep's verification run on its CPU, 5-10x slower at -O0 (a build type of None or
# Debug), enough to push odd-shape tests past a device call's time limit.
type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
if [ "$type" != Release ] && [ "$type" != RelWithDebInfo ]; then
  echo "pack_bin.sh: $build is a '$type' build; configure it with -DCMAKE_BUILD_TYPE=Release" >&2
  exit 2
fi
cmake --build "$build" -j "$(nproc)" --target fa2bench fa2bench_gpu_tests
mkdir -p .carry/bin
git rev-parse HEAD > .carry/git_sha
for b in fa2bench tests/fa2bench_gpu_tests; do
  strip -o ".carry/bin/$(basename "$b")" "$build/$b"
  gzip -f -1 ".carry/bin/$(basename "$b")"
done
du -sh .carry
