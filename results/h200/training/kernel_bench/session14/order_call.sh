#!/usr/bin/env bash
# Session 14 call 4: fa2 backward loop orders (results/h200/training/kernel_bench/session14/
# bwd_order.patch, GPU tests built here without a GPU and carried): FA2B_BWD_ORDER 0 (shipped),
# 3 (flash's order), 2 (dQ between dV and dK) timed interleaved for 2 rounds, then each order's
# *Fa2Bwd* tests concurrently with what is left.
set -u
outdir=/tmp/c4; mkdir -p $outdir; budget=165; PACK=$OUT/c4.tgz
source scripts/h200/steps.sh
mkdir -p /tmp/cb/tests; xz -dc .carry/bin/fa2bench_gpu_tests_order.xz > /tmp/cb/tests/g; chmod +x /tmp/cb/tests/g
source scripts/h200/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > $outdir/gpu.txt
step ab 85 sh -c "ROUNDS=2 scripts/h200/bwd_env_ab.sh /tmp/cb/tests/g FA2B_BWD_ORDER '0 3 2' $outdir/ab_runs.log > $outdir/ab.txt 2>&1"
cat $outdir/ab.txt
for v in 0 3 2; do
  ( env FA2B_BWD_ORDER=$v timeout $(( $(left) - 12 )) /tmp/cb/tests/g --gtest_filter='*Fa2Bwd*:-*Bench*' --gtest_brief=1 > $outdir/tests_$v.log 2>&1 ) &
done
wait
for v in 0 3 2; do echo "order $v: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' $outdir/tests_$v.log | tr '\n' ' ')"; done
pack
echo "total: $(($(date +%s) - steps_start))s"
