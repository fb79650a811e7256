#!/usr/bin/env bash
# One device call that produces every committed H200 result of a release: build, the whole
# test suite, a compute-sanitizer pass over a kernel subset, both seed configs (with the peer
# backends) and PyTorch SDPA baselines in the same job. Results land in results/h200/ and,
# tarred with the logs, in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" results/h200
scripts/h200/build_on_device.sh > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
tail -2 "$out/build.log"
bin=build-h200/fa2bench
# Our cudnn backend loads the same libcudnn PyTorch uses, so the two are compared on one library.

source scripts/h200/env.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > results/h200/gpu_state.txt
$bin devices > results/h200/devices.txt
(time ctest --test-dir build-h200 --output-on-failure -j 4) > "$out/ctest.log" 2>&1
grep -E "tests passed|FAILED|Failed" "$out/ctest.log" | tail -12
for cfg in seed_notebook seed_article; do
  mkdir -p results/h200/$cfg
  $bin sweep --config configs/$cfg.json --target cuda --out results/h200/$cfg --quiet \
    > "results/h200/$cfg/stdout.txt" 2> "$out/$cfg.stderr"
  echo "== $cfg: exit $?"; sed -n '/^check/,$p' "results/h200/$cfg/stdout.txt"
done
for cfg in seed_notebook seed_article; do
  PYTHONUNBUFFERED=1 timeout 200 python3 scripts/torch_sdpa_baseline.py --config configs/$cfg.json \
    --fa2bench $bin --only-shapes-of fa2 --backends flash,cudnn,math \
    --out results/h200/$cfg/torch_sdpa.json 2> "$out/torch_$cfg.log" || tail -3 "$out/torch_$cfg.log"
done
# compute-sanitizer on a subset of instantiations (the whole set does not fit one device call).
SANITIZE_OUT=results/h200/sanitize \
SANITIZE_FILTER='*Fa2KernelSweep*bf16_d128*:*Fa2KernelSweep*fp16_d64*:*NaiveSweep*bf16_D128_causal*:*NaiveSweep*fp16_D64_full*' \
  timeout 150 scripts/sanitize.sh build-h200 | tail -5
tar czf "$out/results_h200.tgz" results/h200
