#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200, fa2 at every head dim that is a multiple of 8 (padded head dims, issue 20): the
# padded kernels' GPU tests and the fa2 forward sweep (every tiled head dim, T <= 1000); the
# padded tests under memcheck; then configs/head_dims.json (fa2 and naive) and the TFLOP/s of
# each padded head dim beside its tile's own (head_dims_vs_tile.txt). Writes OUTDIR/; with
# PACK set, tarred there after every step (scripts/h200/steps.sh).
#   [PACK=$OUT/head_dims.tgz] scripts/h200/head_dims_check.sh BUILD_DIR OUTDIR [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=$1 outdir=$2 budget=${3:-240}
bin=$build/fa2bench
tests=$build/tests/fa2bench_gpu_tests
mkdir -p "$outdir"
source scripts/h200/steps.sh

filter='Fa2Kernel.*:Fa2Bwd.SupportRules:AllDims/Fa2KernelSweep.AllLengthsBothMasks/*:GpuFa2SmemLimit.*'
FA2BENCH_TEST_MAX_T=1000 step tests 120 "$tests" --gtest_filter="$filter" \
  > "$outdir/gpu_tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED)" "$outdir/gpu_tests.log"
FA2BENCH_TEST_MAX_T=1000 step memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 86 \
  "$tests" --gtest_filter='Fa2Kernel.PaddedHeadDims' --gtest_brief=1 > "$outdir/memcheck.log" 2>&1
grep -E "ERROR SUMMARY|PASSED|FAILED" "$outdir/memcheck.log"
step head_dims 60 "$bin" sweep --config configs/head_dims.json --out "$outdir/head_dims" --quiet \
  > "$outdir/head_dims.stdout" 2>&1
tail -8 "$outdir/head_dims.stdout"
python3 - "$outdir/head_dims/results.json" > "$outdir/head_dims_vs_tile.txt" <<'PY'
import json, sys
tiles = [32, 64, 96, 128, 160, 192, 224, 256]
fa2 = {c["params"]["D"]: c for c in json.load(open(sys.argv[1]))["cases"]
       if c["backend"] == "fa2" and c["status"] == "ok"}
for d, c in sorted(fa2.items()):
    tile = min(t for t in tiles if t >= d)
    if tile == d or tile not in fa2:
        continue
    ratio = c["tflops"] / fa2[tile]["tflops"]
    print(f"D={d:3d} in D={tile:3d}'s tile: {c['tflops']:7.1f} vs {fa2[tile]['tflops']:7.1f} "
          f"TFLOP/s ({ratio:.3f}x)")
PY
cat "$outdir/head_dims_vs_tile.txt"
pack
