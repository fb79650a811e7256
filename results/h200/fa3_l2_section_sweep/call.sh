#!/usr/bin/env bash
# Prepared in session 18 (not run): how many (batch, head) pairs an L2 section of the fa3 tile
# order should hold. Call 5's Nsight Compute of B32-H16-T512-D128 non-causal showed the L2 hit
# rate at 54% and DRAM at 48% (366 MB moved for 64 MB of Q, K, V and O): with sections sized to
# half of L2 (100 pairs at T = 512) the K and V of a section do not stay in L2 while its four
# rounds of m-blocks pass. This sweeps FA2BENCH_FA3_L2_SECTION over 1..64 pairs against the
# shipped size on perf_fwd's T = 512, 2048 and 8192 cases (fa3 only, bf16, two rounds), then
# profiles a small size at T = 512 in Nsight Compute. The build has the fa3 tuning variants:
# their tests run first (the copy-engine store of O and the 3-stage tile are new and have never
# run), and a tune of the T = 512 cases follows the sweep.
# From the repository root with carry=[".carry"]:
#   bash results/h200/fa3_l2_section_sweep/call.sh
set -u
outdir=/tmp/ls; mkdir -p $outdir; budget=540; PACK=$OUT/l2_section_sweep.tgz
source scripts/h200/steps.sh
export FA2BENCH_CMAKE_ARGS="-DFA2BENCH_DEV_KERNELS=ON -DFA2BENCH_DEV_ONLY=/fa3/"
build_limit=240 build_or_stop --target fa2bench fa2bench_gpu_tests
step devtests 90 env FA2BENCH_FA3_CTAS=3 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Dev*' \
  --gtest_brief=1 > $outdir/devtests.log 2>&1
echo "dev variant tests: $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/devtests.log | tr '\n' ' ')"
grep -m 4 -B2 -A6 "Failure" $outdir/devtests.log | head -30
f='^fa3/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H(32|16|8)-T8192)-.*/bf16/'
for r in 1 2; do
  for s in 0 1 2 4 8 16 32 64; do
    [ "$(left)" -gt 180 ] || break 2
    FA2BENCH_FA3_L2_SECTION=$s timeout 40 /tmp/b/fa2bench sweep --config configs/perf_fwd.json \
      --target cuda --backends fa3 --filter "$f" --out $outdir/s${s}_$r --quiet > /dev/null 2>&1
    echo "section=$s round $r: $?"
  done
done
pack
python3 - "$outdir" <<'PY' | tee $outdir/table.md
import json, glob, os, sys, collections
out = sys.argv[1]
t = collections.defaultdict(dict)
for d in sorted(glob.glob(os.path.join(out, 's*_*'))):
    s = os.path.basename(d).split('_')[0][1:]
    for line in open(os.path.join(d, 'results.jsonl')):
        c = json.loads(line)
        if c['status'] == 'ok':
            t[c['id']].setdefault(s, []).append(c['tflops'])
sizes = ['0', '1', '2', '4', '8', '16', '32', '64']
print('| case | ' + ' | '.join('shipped' if s == '0' else s for s in sizes) + ' |')
print('|---|' + '--:|' * len(sizes))
for k in sorted(t):
    row = [max(t[k][s]) if s in t[k] else float('nan') for s in sizes]
    print('| %s | ' % k.split('/', 1)[1] + ' | '.join('%.1f' % v for v in row) + ' |')
PY
pack
if ! grep -q '^\[  FAILED' $outdir/devtests.log; then
  step tune_T512 60 /tmp/b/fa2bench tune --backend fa3 --config configs/perf_fwd.json \
    --out $outdir/tune_T512 --filter 'T512-.*bf16' --set measure.warmup=2 \
    --set measure.min_samples=5 --set measure.max_samples=10 --overwrite --quiet > $outdir/tune_T512.txt 2>&1
  sed -n '/^Winners/,$p' $outdir/tune_T512.txt
fi
c=B32-H16-T512-D128/bf16/full
t=$(($(left) - 15))
[ $t -gt 40 ] && FA2BENCH_FA3_L2_SECTION=4 timeout $t scripts/h200/ncu_case.sh /tmp/b/fa2bench \
  configs/perf_fwd.json fa3 fa3_fwd_kernel "$c" $outdir/ncu fa3_t512_d128_full_section4
pack
echo "total: $(($(date +%s) - steps_start))s"
