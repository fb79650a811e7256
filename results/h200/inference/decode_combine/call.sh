#!/usr/bin/env bash
# Session 15 call 6: the batched combine + programmatic dependent launch (new) against main
# (old, the patch reversed): decode tests of new, interleaved timing of both on decode points,
# ncu kernel durations of new at B1 Hkv8 Tq1 Tk32K.
set -u
outdir=/tmp/c6; mkdir -p $outdir; budget=480; PACK=$OUT/c6.tgz
source scripts/h200/steps.sh
source scripts/h200/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gpu_state > $outdir/gpu.txt
rm -rf /tmp/old && cp -r "$PWD" /tmp/old && (cd /tmp/old && patch -R -p1 < .carry/combine.patch > $outdir/patch_old.log 2>&1; echo "patch -R: $?")
build_both() {
  (FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh -j 10 > $outdir/build_new.log 2>&1; echo "new: $?") &
  (cd /tmp/old && FA2BENCH_BUILD_DIR=/tmp/bo scripts/h200/build_on_device.sh -j 6 --target fa2bench > $outdir/build_old.log 2>&1; echo "old: $?") &
  wait
}
export -f build_both; export outdir
step build 200 bash -c build_both
tail -1 $outdir/build_new.log $outdir/build_old.log
step tests 110 sh -c "/tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Fa2Decode*:*Fa2Paged*:*Fa2SplitChoice*' --gtest_brief=1 > $outdir/tests_new.log 2>&1"
grep -E "^\[  (PASSED|FAILED)  \]|tests? ran" $outdir/tests_new.log
cat > /tmp/probe.json <<'J'
{"name": "decode_probe",
 "measure": {"warmup": 5, "min_samples": 20, "max_samples": 50, "max_time_s": 1,
             "target_rel_spread": 0.02, "seed": 20, "l2_flush": true, "verify_rows": 16},
 "defaults": {"H": 32, "D": 128, "dtype": "bf16", "layout": "bhsd", "mode": "fwd", "T_q": 1},
 "sweeps": [
  {"name": "b1gqa", "backends": ["fa2", "cudnn"],
   "grid": {"B": [1], "H_kv": [8], "T_k": [4096, 32768, 131072], "causal": [true]}},
  {"name": "b1", "backends": ["fa2"], "grid": {"B": [1, 8], "H_kv": [32], "T_k": [4096, 32768], "causal": [true]}},
  {"name": "b64", "backends": ["fa2", "cudnn"],
   "grid": {"B": [64], "H_kv": [32], "T_q": [1, 4], "T_k": [4096], "causal": [true, false]}}
 ]}
J
ab() {
  for r in 1 2; do
    for v in old new; do
      b=/tmp/b; [ $v = old ] && b=/tmp/bo
      $b/fa2bench sweep --config /tmp/probe.json --target cuda --out $outdir/probe_${v}_$r --quiet > $outdir/probe_${v}_$r.stdout 2>&1
      echo "$v $r: $?"
    done
  done
}
export -f ab
step ab 150 bash -c ab
python3 - $outdir <<'PY' | tee $outdir/ab_table.txt
import json, sys, os, statistics as st
d = sys.argv[1]; t = {}
for v in ("old", "new"):
    for r in (1, 2):
        f = f"{d}/probe_{v}_{r}/results.json"
        if not os.path.exists(f): continue
        for c in json.load(open(f))["cases"]:
            m = (c.get("time_ms") or {}).get("median")
            if m: t.setdefault(c["id"], {}).setdefault(v, []).append(m)
print(f"{'case':56s} {'old ms':>9s} {'new ms':>9s} new/old")
for k in sorted(t):
    o = st.median(t[k].get("old", [0])); n = st.median(t[k].get("new", [0]))
    print(f"{k:56s} {o:9.4f} {n:9.4f} {n / o if o else 0:6.3f}")
PY
step ncu 45 sh -c "ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__grid_size,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed /tmp/b/fa2bench sweep --config /tmp/probe.json --target cuda --no-isolate --quiet --backends fa2 --filter '^fa2/B1-H32-Hkv8-Tq1-Tk32768-D128/bf16/causal\$' --out /tmp/ncu_new --overwrite --profile-once > $outdir/ncu_new_b1_32k.txt 2>&1"
grep -E "fa2b::|gpu__time_duration|dram__bytes_read|grid_size" $outdir/ncu_new_b1_32k.txt | cut -c1-150 | head -20
pack
echo "total: $(($(date +%s) - steps_start))s"
