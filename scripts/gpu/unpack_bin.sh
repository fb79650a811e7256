# SPDX-License-Identifier: Apache-2.0
# Sourced on the GPU machine: unpacks the binaries scripts/gpu/pack_bin.sh carried into DIR
# (default /tmp/cb, as a build dir: DIR/fa2bench, DIR/tests/fa2bench_gpu_tests) and sets up
# their libraries (env.sh, and RE2 from .carry/deps); the GPU tests that start fa2bench find it
# through FA2BENCH_TEST_BINARY.
cb=${1:-/tmp/cb}
mkdir -p "$cb/tests"
# gzip from pack_bin.sh, or xz (binaries built on an earlier device call and returned).
unpack() {
  if [ -f ".carry/bin/$1.xz" ]; then xz -dc ".carry/bin/$1.xz" > "$2"; else gunzip -c ".carry/bin/$1.gz" > "$2"; fi
  chmod +x "$2"
}
unpack fa2bench "$cb/fa2bench"
unpack fa2bench_gpu_tests "$cb/tests/fa2bench_gpu_tests"
source scripts/gpu/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FA2BENCH_TEST_BINARY=$cb/fa2bench
