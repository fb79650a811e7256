#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On a machine with several GPUs: each config swept once on GPU 0 alone (--devices 0) and once
# on every GPU (--devices all), into results/<dir>/<config>_devices0 and _devices_all, so that
# `fa2bench compare` can check the two give every case the same result and the summaries'
# wall times give the speedup.
#   scripts/h200/devices_all.sh [RESULTS_DIR=results/h200x2] [CONFIG...]
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-results/h200x2}
shift || true
configs=("${@:-seed_article perf_fwd}")
out=${OUT:-/tmp/out}
mkdir -p "$out" "$dir"
pack() { tar czf "$out/results_multi.tgz" "$dir"; }
scripts/h200/build_on_device.sh --target fa2bench > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
tail -1 "$out/build.log"
source scripts/h200/env.sh
bin=build-h200/fa2bench
gpu_state > "$dir/gpu_state.txt"
$bin devices > "$dir/devices.txt"
for cfg in ${configs[@]}; do
  for devs in 0 all; do
    name=${cfg}_devices$([ "$devs" = all ] && echo _all || echo 0)
    start=$(date +%s.%N)
    $bin sweep --config "configs/$cfg.json" --target cuda --devices "$devs" --out "$dir/$name" \
      --quiet > "$dir/$name.stdout.txt" 2> "$dir/$name.stderr.txt"
    rc=$?
    echo "== $name: exit $rc, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s; $(grep -m1 wall "$dir/$name/summary.md")"
    pack
  done
done
