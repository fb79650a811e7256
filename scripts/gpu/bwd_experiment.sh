#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Times fa2 backward experiments behind preprocessor switches (device only, tuning exploration).
# Each argument "LABEL|DEFINES|DIMS" recompiles the bf16 backward units of DIMS (comma list) in
# BUILD with DEFINES appended to their usual command (e.g. "-DFA2B_BWD_ROTATE=1"), relinks the
# GPU tests, prints the units' registers, and runs the disabled Fa2BwdBench harness on those head
# dims. The switches live in a patch applied on the device copy first (for example
# results/h200/training/kernel_bench/session11/experiment_switches.patch). A last argument
# "base||64,128,256" puts the default objects back.
#   scripts/h200/bwd_experiment.sh BUILD "LABEL|DEFINES|DIMS" ...
set -uo pipefail
build=$1
shift
for v in "$@"; do
  IFS='|' read -r label defs dims <<< "$v"
  for d in ${dims//,/ }; do
    obj=$(cd "$build" && find . -name "fa2_bwd_bf16_d$d.cu.o" | sed 's|^\./||' | head -1)
    cmd=$(ninja -C "$build" -t commands "$obj" | tail -1)
    (cd "$build" && eval "$cmd $defs -Xptxas -v" > "/tmp/exp_${label}_$d.log" 2>&1 &&
      grep -o "Used [0-9]* registers" "/tmp/exp_${label}_$d.log" | sort | uniq -c | tr '\n' ' ' |
      sed "s/^/[$label] d$d bf16: /"; echo) &
  done
  wait
  ninja -C "$build" tests/fa2bench_gpu_tests > /tmp/exp_link.log 2>&1 || { tail -5 /tmp/exp_link.log; continue; }
  FA2BENCH_BENCH_DIMS=$dims "$build"/tests/fa2bench_gpu_tests --gtest_also_run_disabled_tests \
    --gtest_filter='*Fa2BwdBench*' 2>&1 | grep FA2BWDBENCH | sed "s/^/[$label] /"
done
