#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The device calls that produce every committed H200 result of a release, in stages that each
# fit one call (a call is at most 10 minutes):
#   test      build, the whole ctest suite
#   sanitize  compute-sanitizer memcheck/racecheck/synccheck over every kernel instantiation
#   peers     our cudnn vs PyTorch's, with and without Stats (scripts/h200/peers.sh)
#   perf      configs/perf_fwd.json (fa2, cudnn) and PyTorch flash/cudnn on the same shapes
#   rerun     the perf stage again into results/h200/perf_fwd_rerun (run-to-run spread)
#   seeds     both seed configs (every backend) and PyTorch flash/cudnn/math on their shapes,
#             and the seed notebook once more with --devices all
# Usage: STAGES="test sanitize peers" scripts/h200/final.sh; STAGES="perf seeds" scripts/h200/final.sh
# Results land in results/h200/ and, tarred with the logs, in $OUT after every stage.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
stages=${STAGES:-"test sanitize peers perf seeds"}
mkdir -p "$out" results/h200/logs
pack() { tar czf "$out/results_h200.tgz" results/h200; }
scripts/h200/build_on_device.sh > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
tail -1 "$out/build.log"
source scripts/h200/env.sh
bin=build-h200/fa2bench
gpu_state > results/h200/gpu_state.txt
$bin devices > results/h200/devices.txt
if [[ $stages == *test* ]]; then
  (time ctest --test-dir build-h200 --output-on-failure -j 4) > results/h200/logs/ctest.log 2>&1
  grep -E "tests passed|FAILED|Failed" results/h200/logs/ctest.log | tail -12
  pack
fi
if [[ $stages == *sanitize* ]]; then
  rm -rf results/h200/sanitize
  SANITIZE_JOBS=8 SANITIZE_OUT=results/h200/sanitize timeout ${SANITIZE_TIMEOUT:-300} \
    scripts/sanitize.sh build-h200 | tail -4
  pack
fi
if [[ $stages == *peers* ]]; then
  timeout 150 scripts/h200/peers.sh build-h200 | tail -12
  pack
fi
# One sweep of a config into results/h200/<name>, then PyTorch on the shapes fa2 ran.
sweep_with_torch() {
  local cfg=$1 name=$2 torch_backends=$3
  shift 3
  mkdir -p results/h200/$name
  $bin sweep --config configs/$cfg.json --target cuda --out results/h200/$name --quiet "$@" \
    > "results/h200/$name/stdout.txt" 2> "results/h200/logs/$name.stderr"
  echo "== $name: exit $?"; sed -n '/^check/,$p' "results/h200/$name/stdout.txt" | head -12
  if [ -n "$torch_backends" ]; then
    PYTHONUNBUFFERED=1 timeout 200 python3 scripts/torch_sdpa_baseline.py --config configs/$cfg.json \
      --fa2bench $bin --only-shapes-of fa2 --backends "$torch_backends" \
      --out results/h200/$name/torch_sdpa.json > "results/h200/logs/torch_$name.log" 2>&1
    echo "torch ($name): exit $?"
  fi
  pack
}
if [[ $stages == *perf* ]]; then
  sweep_with_torch perf_fwd perf_fwd flash,cudnn
fi
if [[ $stages == *rerun* ]]; then  # the perf stage once more, to show its spread between runs
  sweep_with_torch perf_fwd perf_fwd_rerun flash,cudnn
fi
if [[ $stages == *seeds* ]]; then
  sweep_with_torch seed_notebook seed_notebook flash,cudnn,math
  sweep_with_torch seed_article seed_article flash,cudnn,math
  sweep_with_torch seed_notebook seed_notebook_devices_all "" --devices all
fi
pack
