#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds fa2bench on a GPU machine that lacks the Debian header packages: they travel
# unpacked under .carry/deps (scripts/gpu/carry_deps.sh makes it).
#   [FA2BENCH_BUILD_DIR=build-h200] [FA2BENCH_CMAKE_ARGS=...] scripts/gpu/build_on_device.sh [cmake --build args]
set -euo pipefail
cd "$(dirname "$0")/../.."
# The toolchain path and cuDNN's graph headers (from PyTorch's wheel; without them the cudnn
# backend builds as a stub that says so).
source scripts/gpu/env.sh
build=${FA2BENCH_BUILD_DIR:-build-h200}
# Without the carried headers CMake would fail to configure, and a later configure in the same
# build directory could pair the carried RE2 headers with a library cached from the image (seen
# as heap corruption in every fa2bench command): stop before either happens.
if [ ! -d .carry/deps/usr/include ]; then
  echo "build_on_device.sh: .carry/deps is missing: pass carry=[\".carry\"] to the device call" >&2
  exit 2
fi
# The carried libraries (RE2) at run time too, for whoever sources this build.
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The copy on the GPU machine has no .git: the commit travels in .carry/git_sha.
git_flag=()
[ -f .carry/git_sha ] && git_flag=(-DFA2BENCH_GIT="$(cat .carry/git_sha)")
start=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$PWD/.carry/deps/usr" ${FA2BENCH_CMAKE_ARGS:-} "${git_flag[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)" "$@"
echo "build: $(( $(date +%s) - start ))s"
