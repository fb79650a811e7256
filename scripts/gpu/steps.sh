# SPDX-License-Identifier: Apache-2.0
# Sourced by the device-call scripts: steps with their own time limits inside one call budget,
# and a tar of the output after every step, because a device call returns only a few files and
# a call cut by its limit returns nothing that was not already packed.
#   budget=SECONDS outdir=DIR [PACK=FILE.tgz]; source scripts/gpu/steps.sh
#   step NAME SECONDS CMD...   runs CMD for at most SECONDS (or what is left), then packs
#   left                       seconds of the budget left
#   patched_tree PATCH         copies the repository to /tmp/exp and applies PATCH there (an
#                              experiment built beside HEAD; patch -p1 output in $outdir/patch.log)
#   build_or_stop [ARGS]       the build step (below)
#   build_ab PATCH             an A/B pair built side by side: HEAD's fa2bench in /tmp/ba, the
#                              patched tree's fa2bench and GPU tests in /tmp/bb; stops the call
#                              when either is missing
#   ab_rounds N DIR ARGS...    `fa2bench sweep ARGS` with build_ab's HEAD (a) and candidate (b)
#                              in turn, N rounds, into DIR/{a,b}_R (40 s each, while the budget
#                              lasts): the interleaved A/B that scripts/gpu/ab_table.py
#                              reads
#   ab_fa3_vs_cudnn N DIR FILTER ARGS...
#                              ab_rounds N DIR with fa3 on the cases FILTER selects, then cuDNN
#                              once on HEAD's build (DIR/cudnn), then the A/B table
#                              (scripts/gpu/ab_table.py) into $outdir/ab.md
#   tests_and_sanitizers TESTS FILTER SANITIZE_FILTER [SECONDS]
#                              the candidate's GPU tests (gtest FILTER, log $outdir/tests.log)
#                              beside racecheck, memcheck and synccheck (SANITIZE_FILTER, grid
#                              class small) on /tmp/bb, then their summaries; returns 1 when a
#                              test failed or none passed (no timing on a failing candidate)
#   fa3_dev_build_and_tests    a build with the fa3 tuning variants (kernels/fa3/fa3_dev_tiles.h)
#                              into /tmp/b, then their tests on 3 persistent CTAs
#                              ($outdir/devtests.log); returns 1 when one failed
#   fa3_fwd_tests_and_sanitizers TOOLS
#                              /tmp/bb's fa3 forward tests, shipped and persistent on 3 CTAs
#                              ($outdir/tests_{shipped,persistent3}.log), beside each sanitizer of
#                              TOOLS (e.g. "racecheck synccheck memcheck") over the forward sweep
#                              persistent on 3 CTAs; returns 1 when a test or a sanitizer failed
#   compare_pairs DIR PAIR...  `fa2bench compare DIR/results.json` with itself for each
#                              --pair (e.g. fa3=cudnn), into $outdir/compare_fa3_vs_cudnn.md ...
# Keep outdir outside $OUT (e.g. /tmp/cN) and PACK under it: a call returns at most 8 files
# from $OUT, so an outdir there comes back cut, while the one tar holds everything.
# Sourcing it also sets up the call's environment: the toolchain and cuDNN (env.sh) and the
# libraries carried under .carry/deps.
steps_start=$(date +%s)
source scripts/gpu/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
patched_tree() {
  rm -rf /tmp/exp && cp -r "$PWD" /tmp/exp &&
    (cd /tmp/exp && patch -p1 < "$1" > "$outdir/patch.log" 2>&1)
  echo "patch: $?"
}
build_ab() {
  patched_tree "$1"
  (FA2BENCH_BUILD_DIR=/tmp/ba timeout 220 scripts/gpu/build_on_device.sh --target fa2bench \
    > "$outdir/build_a.log" 2>&1; echo "build_a (HEAD): $?") &
  (cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/bb timeout 230 scripts/gpu/build_on_device.sh \
    --target fa2bench fa2bench_gpu_tests > "$outdir/build_b.log" 2>&1
    echo "build_b (candidate): $?") &
  wait
  echo "builds done at $(($(date +%s) - steps_start))s"
  [ -x /tmp/ba/fa2bench ] && [ -x /tmp/bb/tests/fa2bench_gpu_tests ] ||
    { echo "no binaries"; tail -n 5 "$outdir"/build_*.log; pack; exit 1; }
}
ab_rounds() {
  local rounds=$1 dir=$2 r v
  shift 2
  for r in $(seq "$rounds"); do
    for v in a b; do
      [ "$(left)" -gt 40 ] || return 0
      timeout 40 /tmp/b$v/fa2bench sweep "$@" --out "$dir/${v}_$r" --quiet > /dev/null 2>&1
      echo "$(basename "$dir") $v round $r: $? at $(($(date +%s) - steps_start))s"
    done
  done
}
ab_fa3_vs_cudnn() {
  local rounds=$1 dir=$2 filter=$3
  shift 3
  ab_rounds "$rounds" "$dir" --target cuda --backends fa3 --filter "$filter" "$@"
  [ "$(left)" -gt 40 ] && timeout 40 /tmp/ba/fa2bench sweep --target cuda --backends cudnn \
    --filter "$filter" "$@" --out "$dir/cudnn" --quiet > /dev/null 2>&1
  python3 scripts/gpu/ab_table.py "$dir" | tee "$outdir/ab.md"
}
tests_and_sanitizers() {
  local filter=$1 sfilter=$2 t=${3:-150} tool jobs
  ( timeout "$t" /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$filter" --gtest_brief=1 \
      > "$outdir/tests.log" 2>&1 ) &
  for tool in racecheck memcheck synccheck; do
    jobs=1; [ $tool = racecheck ] && jobs=4
    ( SANITIZE_TOOLS=$tool SANITIZE_FILTER="$sfilter" SANITIZE_CLASSES=small \
        SANITIZE_JOBS=$jobs SANITIZE_OUT="$outdir/$tool" timeout "$t" scripts/sanitize.sh /tmp/bb \
        > "$outdir/$tool.log" 2>&1
      echo "$tool: exit $?" ) &
  done
  wait; pkill -f compute-sanitizer
  echo "tests: $(grep -E '^\[  (PASSED|FAILED)  \]' "$outdir/tests.log" | tr '\n' ' ')"
  grep -m 4 -B2 -A8 'Failure' "$outdir/tests.log" | head -40
  cat "$outdir"/*/summary.txt 2>/dev/null
  grep -h -m 2 -A3 'hazard detected\|Invalid\|Barrier error' "$outdir"/*/*.log 2>/dev/null | head -12
  pack
  ! grep -q '^\[  FAILED' "$outdir/tests.log" && grep -q '^\[  PASSED' "$outdir/tests.log"
}
fa3_dev_build_and_tests() {
  FA2BENCH_CMAKE_ARGS="-DFA2BENCH_DEV_KERNELS=ON -DFA2BENCH_DEV_ONLY=/fa3/" build_limit=240 \
    build_or_stop --target fa2bench fa2bench_gpu_tests
  step devtests 90 env FA2BENCH_FA3_CTAS=3 /tmp/b/tests/fa2bench_gpu_tests \
    --gtest_filter='*Fa3Dev*' --gtest_brief=1 > "$outdir/devtests.log" 2>&1
  echo "dev variant tests: $(grep -E '^\[  (PASSED|FAILED)  \]' "$outdir/devtests.log" | tr '\n' ' ')"
  grep -m 4 -B2 -A6 "Failure" "$outdir/devtests.log" | head -30
  pack
  ! grep -q '^\[  FAILED' "$outdir/devtests.log"
}
fa3_fwd_tests_and_sanitizers() {
  local f='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*' tool jobs t
  ( timeout 60 /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$f" --gtest_brief=1 \
      > "$outdir/tests_shipped.log" 2>&1
    FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 timeout 45 \
      /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$f" --gtest_brief=1 \
      > "$outdir/tests_persistent3.log" 2>&1 ) &
  for tool in $1; do
    jobs=1; [ "$tool" = racecheck ] && jobs=4
    ( FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 \
        SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3KernelSweep*' SANITIZE_CLASSES=small \
        SANITIZE_JOBS=$jobs SANITIZE_OUT="$outdir/$tool" timeout 100 scripts/sanitize.sh /tmp/bb \
        > "$outdir/$tool.log" 2>&1
      echo "$tool: exit $?" ) &
  done
  wait; pkill -f compute-sanitizer
  for t in shipped persistent3; do
    echo "tests $t: $(grep -E '^\[  (PASSED|FAILED)  \]' "$outdir/tests_$t.log" | tr '\n' ' ')"
  done
  grep -h -m 3 -B2 -A8 'Failure' "$outdir"/tests_*.log | head -30
  cat "$outdir"/*/summary.txt 2>/dev/null
  pack
  ! grep -q '^\[  FAILED' "$outdir"/tests_*.log && grep -q '^\[  PASSED' "$outdir/tests_shipped.log" &&
    ! grep -q FAIL "$outdir"/*/summary.txt 2>/dev/null
}
compare_pairs() {
  local dir=$1 pair
  shift
  for pair in "$@"; do
    /tmp/bb/fa2bench compare "$dir/results.json" "$dir/results.json" --pair "$pair" --format md \
      > "$outdir/compare_${pair/=/_vs_}.md" 2>&1
  done
}
left() { echo $((budget - ($(date +%s) - steps_start))); }
pack() {
  rm -f "$outdir"/*/.fa2bench.lock "$outdir"/*/*/.fa2bench.lock
  [ -n "${PACK:-}" ] && tar czf "$PACK" -C "$(dirname "$outdir")" "$(basename "$outdir")"
}
step() {
  local name=$1 want=$2
  shift 2
  local t
  t=$(left)
  [ "$t" -gt "$want" ] && t=$want
  if [ "$t" -lt 10 ]; then
    echo "$name: skipped (time)"
    return
  fi
  local s
  s=$(date +%s)
  timeout "$t" "$@"
  echo "$name: exit $? in $(($(date +%s) - s))s"
  pack
}

# The build step every call starts with: HEAD's tree (or the patched copy's, when run from
# /tmp/exp) into /tmp/b, at most build_limit seconds (default 170; a build with the tuning
# variants, FA2BENCH_CMAKE_ARGS="-DFA2BENCH_DEV_KERNELS=ON ...", wants 240), the log in
# $outdir/build.log; without a binary the call packs what it has and stops.
#   [build_limit=S] build_or_stop [cmake --build args, e.g. --target fa2bench fa2bench_gpu_tests]
build_or_stop() {
  step build "${build_limit:-170}" sh -c "FA2BENCH_BUILD_DIR=/tmp/b scripts/gpu/build_on_device.sh $* > $outdir/build.log 2>&1"
  tail -n 1 "$outdir/build.log"
  [ -x /tmp/b/fa2bench ] || { echo "no binary"; pack; exit 1; }
}

# The call's last step: configs/decode.json with fa2 and cudnn into $outdir/decode with what is
# left of the budget, keeping 15 s for the final tar (a call cut at its own limit returns
# nothing). Then the final tar and the total.
#   last_step_decode BUILD_DIR
last_step_decode() {
  local t=$(($(left) - 15))
  if [ "$t" -gt 30 ]; then
    timeout "$t" "$1"/fa2bench sweep --config configs/decode.json --target cuda \
      --backends fa2 cudnn --out "$outdir/decode" --quiet > "$outdir/decode.stdout" 2>&1
    echo "decode: exit $?"
  fi
  pack
  echo "total: $(($(date +%s) - steps_start))s"
}
