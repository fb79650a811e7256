#!/usr/bin/env bash
# Prepared in session 22 (not run): issue 17's acceptance sweep on HEAD (the per-consumer causal
# mask, fa3_mask/), with one candidate beside it: shortest_d256.patch, a third key-length class
# (T_k <= 512) in which causal D = 256 takes the 64-key tile with the copy-engine store (the tune
# in fa3_short_causal/run/: +3.2% at T = 512; D = 256 causal T = 512 sits on the 0.9x line).
# 1. build_ab: HEAD's fa2bench (/tmp/ba), the patched fa2bench and GPU tests (/tmp/bb).
# 2. The patched build's fa3 forward tests, shipped and persistent on 3 CTAs; memcheck, racecheck
#    and synccheck over the forward sweep persistent on 3 CTAs (memcheck was not run on the mask).
# 3. HEAD and patched interleaved on the causal D = 256 cases of perf_fwd at T = 512 and 2048, and
#    cuDNN once; the patch is taken when it wins T = 512 by 1.5% in both dtypes.
# 4. The acceptance sweep with the build taken: perf_fwd.json, fa3, fa2 and cudnn in one sweep,
#    compare --pair fa3=cudnn and fa3=fa2.
# 5. (session 23) seed_notebook and seed_article with fa3 added, on the build taken.
# Prediction: tests and sanitizers clean; the patch +2-4% at T = 512 and within 1% at 2048 (the
# class stops at 512); perf_fwd: every case >= 0.9x cuDNN, D = 64 causal T = 512 about 0.92x.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_accept/call.sh
set -u
outdir=/tmp/ac; mkdir -p $outdir; budget=${BUDGET:-560}; PACK=$OUT/fa3_accept.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_accept
build_ab $k/shortest_d256.patch
take=a
if ! fa3_fwd_tests_and_sanitizers "racecheck synccheck memcheck"; then
  echo "the candidate fails its tests or a sanitizer: HEAD's build takes the acceptance sweep"
else
  fb='^(fa3|cudnn)/(B32-H8-T512|B8-H8-T2048)-D256/[a-z0-9]+/causal'
  m="--set measure.warmup=3 --set measure.min_samples=8 --set measure.max_samples=20"
  ab_rounds 2 $outdir/ab --config configs/perf_fwd.json --target cuda --backends fa3 --filter "$fb" $m
  timeout 30 /tmp/ba/fa2bench sweep --config configs/perf_fwd.json --target cuda --backends cudnn \
    --filter "$fb" $m --out $outdir/ab/cudnn --quiet > /dev/null 2>&1
  python3 results/h200/fa3_bwd_v3/ab_table.py $outdir/ab | tee $outdir/ab.md
  wins=$(grep -cE '^\| B32-H8-T512-D256/(bf16|fp16)/causal \| [0-9.]+ \| [0-9.]+ \| (1\.0(1[5-9]|[2-9][0-9])|1\.[1-9])' \
    $outdir/ab.md)
  [ "$wins" = 2 ] && take=b
fi
echo "acceptance sweep with build $take (a: HEAD, b: shortest_d256.patch)" | tee $outdir/taken.txt
pack
t=$(($(left) - 15))
[ $t -gt 60 ] && timeout $t /tmp/b$take/fa2bench sweep --config configs/perf_fwd.json --target cuda \
  --backends fa3,fa2,cudnn --out $outdir/perf_fwd --quiet > $outdir/perf_fwd.stdout 2>&1
echo "perf_fwd: exit $?"
for pair in fa3=cudnn fa3=fa2; do
  /tmp/bb/fa2bench compare $outdir/perf_fwd/results.json $outdir/perf_fwd/results.json \
    --pair $pair --format md > $outdir/compare_${pair/=/_vs_}.md 2>&1
done
grep -E '\*\*slower' $outdir/compare_fa3_vs_cudnn.md | cut -d'|' -f4,10
tail -n 8 $outdir/compare_fa3_vs_cudnn.md
pack
# 5. The third line on the same build: both seed configs with fa3 beside their backends
#    (about 25 s in session 18's call 5).
t=$(($(left) - 10))
[ $t -gt 20 ] && timeout $t scripts/h200/seeds_with.sh fa3 /tmp/b$take $outdir/seeds_with_fa3 \
  seed_notebook seed_article
pack
echo "total: $(($(date +%s) - steps_start))s"
