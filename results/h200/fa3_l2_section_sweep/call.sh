#!/usr/bin/env bash
# Prepared in session 18 (not run): how many (batch, head) pairs an L2 section of the fa3 tile
# order should hold. Call 5's Nsight Compute of B32-H16-T512-D128 non-causal showed the L2 hit
# rate at 54% and DRAM at 48% (366 MB moved for 64 MB of Q, K, V and O): with sections sized to
# half of L2 (100 pairs at T = 512) the K and V of a section do not stay in L2 while its four
# rounds of m-blocks pass. This sweeps FA2BENCH_FA3_L2_SECTION over 1..64 pairs against the
# shipped size on perf_fwd's T = 512, 2048 and 8192 cases (fa3 only, bf16, two rounds), then
# profiles the best small size at T = 512 in Nsight Compute.
# From the repository root with carry=[".carry"]:
#   bash results/h200/fa3_l2_section_sweep/call.sh
set -u
outdir=/tmp/ls; mkdir -p $outdir; budget=540; PACK=$OUT/l2_section_sweep.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench
f='^fa3/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H(32|16|8)-T8192)-.*/bf16/'
for r in 1 2; do
  for s in 0 1 2 4 8 16 32 64; do
    [ "$(left)" -gt 120 ] || break 2
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
c=B32-H16-T512-D128/bf16/full
t=$(($(left) - 15))
[ $t -gt 40 ] && FA2BENCH_FA3_L2_SECTION=4 timeout $t scripts/h200/ncu_case.sh /tmp/b/fa2bench \
  configs/perf_fwd.json fa3 fa3_fwd_kernel "$c" $outdir/ncu fa3_t512_d128_full_section4
pack
echo "total: $(($(date +%s) - steps_start))s"
