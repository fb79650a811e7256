#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200, with binaries built elsewhere (-DFA2BENCH_DEV_KERNELS=ON, sm_90) in BIN_DIR:
# the fa2 GPU tests under both tile tables, `fa2bench tune` on a few (config, filter) pairs,
# then Nsight Compute profiles (profile.sh) of fa2 and PyTorch flash on the given cases.
#   BIN_DIR=.carry/bin TUNES="perf_fwd:D128/bf16/causal seed_article:" \
#   PROFILE="B8-H16-T2048-D128/bf16/causal" scripts/h200/tune_leads.sh
# Results and logs land in results/h200/ and, tarred, in $OUT after every step.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
bin_dir=${BIN_DIR:-.carry/bin}
logs=results/h200/logs
mkdir -p "$out" "$logs"
pack() { tar czf "$out/results_h200.tgz" results/h200; }
source scripts/h200/env.sh
# libfmt and friends travel with the Debian packages (see README "Development").
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gpu_state > "$logs/gpu_state.txt"
bash scripts/h200/fa2_tests.sh "$bin_dir/fa2bench_gpu_tests" "$logs"
pack
for pair in ${TUNES:-}; do
  cfg=${pair%%:*} filter=${pair#*:}
  name=tune_${cfg}${filter:+_$(echo "$filter" | tr '/' '_')}
  "$bin_dir/fa2bench" tune --config "configs/$cfg.json" --out "results/h200/$name" \
    ${filter:+--filter "$filter"} --set measure.warmup=2 --set measure.min_samples=5 \
    --set measure.max_samples=10 --overwrite --quiet > "$logs/$name.txt" 2>&1
  echo "== $name: exit $?"
  cp "results/h200/$name/tune.md" "results/h200/$name.md"
  sed -n '/^Winners/,$p' "$logs/$name.txt"
  pack
done
if [ -n "${PROFILE:-}" ]; then
  timeout "${PROFILE_TIMEOUT:-300}" scripts/h200/profile.sh "$bin_dir/fa2bench" \
    "${PROFILE_CONFIG:-configs/perf_fwd.json}" $PROFILE
  pack
fi
