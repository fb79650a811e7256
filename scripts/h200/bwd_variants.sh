#!/usr/bin/env bash
# Times the fa2 backward under other tile tables (tuning exploration, device only): rewrites the
# table of head dims <= 128 (the Fa2BwdTraits line with kLarge false) for each "Bm Bn SdP_M KV_N Q_M" argument, rebuilds /tmp/b, runs the
# disabled Fa2BwdBench harness. Leaves the last table in the tree: run it on a copy.
set -uo pipefail
for v in "$@"; do
  set -- $v
  sed -i -E "s/^struct Fa2BwdTraits : Fa2BwdTraitsBase<kHeadDim, [0-9]+, [0-9]+, 8, +[0-9]+, +[0-9]+, +[0-9]+>/struct Fa2BwdTraits : Fa2BwdTraitsBase<kHeadDim, $1, $2, 8,    $3,    $4,   $5>/" kernels/fa2/fa2_bwd_traits.h
  grep "^struct Fa2BwdTraits :" kernels/fa2/fa2_bwd_traits.h
  cmake --build /tmp/b -j 16 --target fa2bench_gpu_tests > /tmp/rebuild.log 2>&1 || { tail -20 /tmp/rebuild.log; continue; }
  /tmp/b/tests/fa2bench_gpu_tests --gtest_also_run_disabled_tests --gtest_filter='*Fa2BwdBench*' 2>&1 | grep FA2BWDBENCH | sed "s/^/[$v] /"
done
