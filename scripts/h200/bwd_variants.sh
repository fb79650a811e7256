#!/usr/bin/env bash
# Times the fa2 backward under other tile tables (tuning exploration, device only). Each
# argument "CLASS Bm Bn warps SdP_M KV_N Q_M" rewrites the Fa2BwdTraits line of that head-dim
# class (0: D <= 64, 1: D <= 128, 2: larger; kernels/fa2/fa2_bwd_traits.h), rebuilds BUILD (default
# /tmp/b), prints ptxas spills of the backward units, and runs the disabled Fa2BwdBench harness
# on the class's shapes. Leaves the last table in the tree: run it on a copy.
set -uo pipefail
build=${BUILD:-/tmp/b}
dims=("32,64" "96,128" "160,192,224,256")
for v in "$@"; do
  set -- $v
  cls=$1
  sed -i -E "s/^(template <int kHeadDim> struct Fa2BwdTraits<kHeadDim, $cls> : Fa2BwdTraitsBase<kHeadDim, )[0-9]+, +[0-9]+, +[0-9]+, +[0-9]+, +[0-9]+, +[0-9]+>/\1$2, $3, $4,    $5,    $6,   $7>/" kernels/fa2/fa2_bwd_traits.h
  grep "Fa2BwdTraits<kHeadDim, $cls>" kernels/fa2/fa2_bwd_traits.h
  cmake --build "$build" -j "$(nproc)" --target fa2bench_gpu_tests > /tmp/rebuild.log 2>&1 || { tail -20 /tmp/rebuild.log; continue; }
  for d in ${dims[$cls]//,/ }; do
    obj=$(find "$build" -name "fa2_bwd_bf16_d$d.cu.o" | head -1)
    [ -n "$obj" ] && cuobjdump --dump-resource-usage "$obj" | grep -o "REG:[0-9]* STACK:[0-9]*" |
      tr '\n' ' ' | sed "s/^/[$v] d$d /; s/\$/\n/"
  done
  FA2BENCH_BENCH_DIMS=${dims[$cls]} "$build"/tests/fa2bench_gpu_tests --gtest_also_run_disabled_tests \
    --gtest_filter='*Fa2BwdBench*' 2>&1 | grep FA2BWDBENCH | sed "s/^/[$v] /"
done
