#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the GPU machine: build with the tuning variants (-DFA2BENCH_DEV_KERNELS=ON), run the fa2 GPU
# tests under both tile tables, then `fa2bench tune` on the seed notebook and the perf grid.
# Everything lands in TUNE_OUT (default out/tune), re-packed into $OUT/tune.tgz after every
# stage, so a run that hits its time limit still returns what it finished.
#   STAGES="test devtest tune" TUNE_FILTER="D64 D256" [TUNE_BACKEND=fa3] scripts/gpu/tune.sh
# (devtest: the tuned family's variant tests, Fa2Dev* or Fa3Dev*, alone.)
# (TUNE_FILTER: tune only the perf-grid cases whose tune id matches each word, a regex, one
# table per word. TUNE_BACKEND=fa3 ranks the Hopper kernel's candidates instead of fa2's; its
# tables are named tune_fa3_*.) Each tune run's sweep reports stay in TUNE_OUT/tune_<name>/,
# its ranking is copied to TUNE_OUT/tune_<name>.md.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
stages=" ${STAGES:-test tune} "  # padded: stages match as whole words
build=${FA2BENCH_BUILD_DIR:-build-h200-dev}
dir=${TUNE_OUT:-out/tune}
logs=$dir/logs
mkdir -p "$logs"
pack() { tar czf "$out/tune.tgz" "$dir"; }
source scripts/gpu/env.sh
family=${TUNE_BACKEND:-fa2}
targets=(--target fa2bench --target fa2bench_gpu_tests)
[[ $stages == *" test "* ]] && targets=()  # ctest needs every test binary
# Only the tuned family's variants: fa2's are dozens of units that an fa3 run never launches.
dev_only=$([ "$family" = fa3 ] && echo "-DFA2BENCH_DEV_ONLY=/fa3/")
FA2BENCH_BUILD_DIR=$build \
  FA2BENCH_CMAKE_ARGS="-DFA2BENCH_DEV_KERNELS=ON $dev_only -DCMAKE_CUDA_FLAGS=-Xptxas=-v ${FA2BENCH_CMAKE_ARGS:-}" \
  scripts/gpu/build_on_device.sh "${targets[@]}" -- -v > "$logs/build.log" 2>&1 ||
  { tail -30 "$logs/build.log"; pack; exit 1; }
tail -1 "$logs/build.log"
grep -E "Compiling entry function|registers|spill" "$logs/build.log" > "$logs/ptxas.txt"
grep -E "[1-9][0-9]* bytes spill" "$logs/build.log" | head -5
bin=$build/fa2bench
gpu_state > "$logs/gpu_state.txt"
if [[ $stages == *" test "* ]]; then
  (time ctest --test-dir "$build" --output-on-failure -j 4) > "$logs/ctest.log" 2>&1
  grep -E "tests passed|FAILED|Failed|real" "$logs/ctest.log" | tail -12
  bash scripts/gpu/fa2_tests.sh "$build/tests/fa2bench_gpu_tests" "$logs"
  pack
fi
if [[ $stages == *" devtest "* ]]; then
  # The candidates' own correctness tests (every variant against float64 on odd shapes).
  timeout 240 "$build"/tests/fa2bench_gpu_tests --gtest_filter="*$(tr a-z A-Z <<< "${family:0:1}")${family:1}Dev*" \
    > "$logs/${family}_dev_tests.log" 2>&1
  echo "dev variant tests: exit $?; $(grep -E '^\[  (PASSED|FAILED)' "$logs/${family}_dev_tests.log" | tr '\n' ' ')"
  grep -m 10 -B2 -A8 "Failure" "$logs/${family}_dev_tests.log" | head -40
  pack
fi
prefix=tune_$([ "$family" = fa2 ] || echo "${family}_")
if [[ $stages == *" tune "* ]]; then
  # The seed notebook has fa2 cases only.
  if [ -z "${TUNE_FILTER:-}" ] && [ "$family" = fa2 ]; then
    $bin tune --config configs/seed_notebook.json --out $dir/tune_seed_notebook \
      --overwrite --quiet > "$logs/tune_seed_notebook.txt" 2>&1
    cp $dir/tune_seed_notebook/tune.md $dir/tune_seed_notebook.md
    sed -n '/^Winners/,$p' "$logs/tune_seed_notebook.txt"
    pack
  fi
  for word in ${TUNE_FILTER:-all}; do
    [ "$word" = all ] && word=""
    suffix=${word:+_$word}
    name=${prefix}perf_fwd$suffix
    $bin tune --backend "$family" --config configs/perf_fwd.json --out "$dir/$name" \
      ${word:+--filter "$word"} --set measure.warmup=2 --set measure.min_samples=5 \
      --set measure.max_samples=10 --overwrite --quiet > "$logs/$name.txt" 2>&1
    cp "$dir/$name/tune.md" "$dir/$name.md"
    sed -n '/^Winners/,$p' "$logs/$name.txt"
    pack
  done
fi
