#!/usr/bin/env bash
# Session 18, call 2: the fa3 forward's query tiles in L2 sections (common/tile_order.h), after
# Nsight Compute showed the D = 128 T = 2048 non-causal kernel DRAM-bound (85% of DRAM, L2 hit
# rate 27%; cuDNN 13%, 74%). Builds HEAD, runs the fa3 forward and varlen tests three ways
# (shipped; per tile in sections of 3 pairs; persistent on 3 CTAs in sections of 2), an A/B of
# the order (FA2BENCH_FA3_L2_SECTION=100000 is the order before), then perf_fwd with fa3, fa2
# and cudnn in one sweep, and varlen.json. From the repository root with carry=[".carry"]:
#   bash results/h200/fa3_l2_order/call.sh
set -u
outdir=/tmp/c2; mkdir -p $outdir; budget=560; PACK=$OUT/l2order.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench fa2bench_gpu_tests
i=0
for envs in "" "FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_FA3_L2_SECTION=3" \
            "FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2"; do
  i=$((i + 1))
  step tests_$i 60 env $envs /tmp/b/tests/fa2bench_gpu_tests \
    --gtest_filter='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*' --gtest_brief=1 > $outdir/tests_$i.log 2>&1
  echo "tests ($envs): $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/tests_$i.log | tr '\n' ' ')"
done
if grep -q '^\[  FAILED' $outdir/tests_*.log || [ "$(grep -l '^\[  PASSED' $outdir/tests_*.log | wc -l)" != 3 ]; then
  echo "fa3 tests fail: no timing"; pack; exit 1
fi
f='^fa3/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H16-T8192-D128)[-/].*bf16'
for r in 1 2; do
  for s in 100000 0; do
    [ "$(left)" -gt 300 ] || break 2
    FA2BENCH_FA3_L2_SECTION=$s timeout 40 /tmp/b/fa2bench sweep --config configs/perf_fwd.json \
      --target cuda --backends fa3 --filter "$f" --out $outdir/ab/s${s}_$r --quiet > /dev/null 2>&1
    echo "section=$s round $r: $?"
  done
done
pack
step perf $(($(left) - 75)) /tmp/b/fa2bench sweep --config configs/perf_fwd.json --target cuda \
  --backends fa3,fa2,cudnn --out $outdir/perf_fwd --quiet > $outdir/perf_fwd.stdout 2>&1
for pair in fa3=cudnn fa3=fa2; do
  /tmp/b/fa2bench compare $outdir/perf_fwd/results.json $outdir/perf_fwd/results.json --pair $pair \
    --format md > $outdir/compare_${pair%%=*}_vs_${pair#*=}.md 2>/dev/null
  grep -A7 "Geometric mean" $outdir/compare_${pair%%=*}_vs_${pair#*=}.md | tail -4
done
step varlen $(($(left) - 15)) /tmp/b/fa2bench sweep --config configs/varlen.json --target cuda \
  --out $outdir/varlen --quiet > $outdir/varlen.stdout 2>&1
grep -E "fa3_packed|fa2_packed" $outdir/varlen.stdout | head -4
pack
echo "total: $(($(date +%s) - steps_start))s"
