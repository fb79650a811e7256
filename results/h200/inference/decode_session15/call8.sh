#!/usr/bin/env bash
# Session 15 call 8 (lean, the session's last device minutes): at 0af5ded, decode.json's B = 1
# and 8 points (contiguous cache) with fa2, cudnn and PyTorch flash in one call, and the
# B64 H32 T_q 1/4 T_k 4K points alone (no heavy case before them).
set -u
outdir=/tmp/c8; mkdir -p $outdir; budget=250; PACK=$OUT/c8.tgz
source scripts/h200/steps.sh
source scripts/h200/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
step build 110 sh -c "FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh --target fa2bench > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
bin=/tmp/b/fa2bench
step ours_b64 20 sh -c "$bin sweep --config configs/decode.json --target cuda --backends 'fa2 cudnn' --filter '^(fa2|cudnn)/B64-H32-Tq[14]-Tk4096-D128/bf16/causal$' --out $outdir/ours_b64 --quiet > $outdir/ours_b64.stdout 2>&1"
step ours 60 sh -c "$bin sweep --config configs/decode.json --target cuda --backends 'fa2 cudnn' --filter '^(fa2|cudnn)/B(1|8)-H32-[^/]*/bf16/causal$' --out $outdir/ours --quiet > $outdir/ours.stdout 2>&1"
step torch 50 sh -c "PYTHONUNBUFFERED=1 python3 scripts/torch_sdpa_baseline.py --config configs/decode.json --fa2bench $bin --backends flash --with-lse --filter '^fa2/(B(1|8)-H32-[^/]*|B64-H32-Tq[14]-Tk4096-D128)/bf16/causal$' --out $outdir/torch_sdpa.json > $outdir/torch_sdpa.log 2>&1"
$bin compare $outdir/torch_sdpa.json $outdir/ours/results.json --pair fa2=torch-flash --format md > $outdir/compare_fa2_vs_torch_flash.md 2>/dev/null
$bin compare $outdir/torch_sdpa.json $outdir/ours_b64/results.json --pair fa2=torch-flash --format md > $outdir/compare_b64_fa2_vs_torch_flash.md 2>/dev/null
grep -hE "^\| fa2" $outdir/compare_fa2_vs_torch_flash.md $outdir/compare_b64_fa2_vs_torch_flash.md | awk -F'|' '{print $4, $5, $6, $9}'
grep -A3 "^| Shape" $outdir/ours_b64/summary.md
pack
echo "total: $(($(date +%s) - steps_start))s"
