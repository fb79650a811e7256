#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nsight Compute profiles on the GPU machine, one kernel launch each, ours beside PyTorch's
# where there is a peer. The clocks are left alone (--clock-control none); ncu's replay flushes
# the caches before each pass, so --profile-once (no warm-up, no verification run, one sample)
# gives exactly the one launch to catch.
#
#   profile.sh fwd  BIN CONFIG OUT_DIR CASE_SHAPE...   fa2's forward and PyTorch flash's on each
#                   shape (e.g. B8-H16-T2048-D128/bf16/causal): details pages, raw CSVs and one
#                   summary line per kernel in OUT_DIR/summary.md (scripts/ncu_summary.py)
#   profile.sh case BIN CONFIG BACKEND KERNEL_REGEX CASE_SHAPE OUT_DIR NAME
#                   one launch of any backend's kernel: details page and per-SASS-line source
#                   counters (stall reasons per instruction; scripts/ncu_sass_stalls.py reads them)
#   profile.sh bwd  BUILD_DIR OUT_DIR "B,H,T,D,causal"...
#                   fa2's backward main kernel (through the Fa2BwdBench harness) and PyTorch
#                   flash's backward on each shape, with both kernels' stall reasons
set -uo pipefail
cd "$(dirname "$0")/../.."
ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)
[ -n "$ncu_bin" ] || { echo "profile.sh: ncu not found" >&2; exit 2; }
sets=(--clock-control none --set full --import-source no)
# REPORT NAME DIR: the details page and the per-SASS-line counters of DIR/NAME.ncu-rep.
export_report() {
  "$ncu_bin" --import "$1/$2.ncu-rep" --page details > "$1/${2}_details.txt" 2>&1
  "$ncu_bin" --import "$1/$2.ncu-rep" --page source --csv --print-source sass > "$1/${2}_sass.csv" 2>&1
}
mode=${1:-}
shift || true
case "$mode" in
  fwd)
    bin=$1 config=$2 dir=$3
    shift 3
    mkdir -p "$dir"
    for case_id in "$@"; do
      file=$(echo "$case_id" | tr '/' '_')
      "$ncu_bin" "${sets[@]}" -k regex:fa2_fwd_kernel --launch-skip 0 --launch-count 1 \
        -f -o "/tmp/$file.fa2" "$bin" sweep --config "$config" --target cuda --no-isolate --quiet \
        --backends fa2 --filter "^fa2/$case_id\$" --out "/tmp/profile_sweep_$file" --overwrite \
        --profile-once > "$dir/$file.fa2.log" 2>&1
      echo "ncu fa2 $case_id: exit $?"
      # The same shape through PyTorch's flash backend (B-H-T-D/dtype/causal|full).
      IFS='-/' read -r b h t d dtype mask <<< "$case_id"
      "$ncu_bin" "${sets[@]}" -k regex:flash_fwd --launch-skip 2 --launch-count 1 \
        -f -o "/tmp/$file.torch-flash" python3 - "${b#B}" "${h#H}" "${t#T}" "${d#D}" "$dtype" "$mask" \
        > "$dir/$file.torch-flash.log" 2>&1 <<'PY'
import sys, torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
B, H, T, D = map(int, sys.argv[1:5])
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[sys.argv[5]]
q, k, v = (torch.randn(B, H, T, D, device="cuda", dtype=dt) for _ in range(3))
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v, is_causal=sys.argv[6] == "causal")
torch.cuda.synchronize()
PY
      echo "ncu torch-flash $case_id: exit $?"
      for who in fa2 torch-flash; do
        [ -f "/tmp/$file.$who.ncu-rep" ] || continue
        "$ncu_bin" --import "/tmp/$file.$who.ncu-rep" --page details > "$dir/$file.$who.details.txt"
        "$ncu_bin" --import "/tmp/$file.$who.ncu-rep" --page raw --csv > "$dir/$file.$who.raw.csv"
      done
    done
    python3 scripts/ncu_summary.py "$dir"/*.raw.csv > "$dir/summary.md"
    cat "$dir/summary.md" ;;
  case)
    bin=$1 config=$2 backend=$3 kernel=$4 case_id=$5 out=$6 name=$7
    mkdir -p "$out"
    timeout 300 "$ncu_bin" "${sets[@]}" --kernel-name "regex:$kernel" --launch-skip 0 \
      --launch-count 1 -f -o "$out/$name" \
      "$bin" sweep --config "$config" --target cuda --no-isolate --quiet --backends "$backend" \
      --filter "^$backend/$case_id\$" --out "/tmp/ncu_sweep_$name" --overwrite --profile-once \
      > "$out/$name.log" 2>&1
    echo "ncu $name: exit $?"
    export_report "$out" "$name"
    rm -f "$out/$name.ncu-rep"
    grep -E "Duration|Compute \(SM\) Throughput|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Achieved Occupancy" \
      "$out/${name}_details.txt" | head -10 ;;
  bwd)
    build=$1 logs=$2
    shift 2
    mkdir -p "$logs"
    for shape in "$@"; do
      name=$(echo "$shape" | tr ',' '_')
      # Ours: the harness warms up, so skip its first launches.
      FA2BENCH_BENCH_SHAPE=$shape timeout 240 "$ncu_bin" "${sets[@]}" \
        --kernel-name regex:fa2_bwd_kernel --launch-skip 3 --launch-count 1 -f -o "$logs/ours_$name" \
        "$build/tests/fa2bench_gpu_tests" --gtest_also_run_disabled_tests \
        --gtest_filter='*Fa2BwdBench*' > "$logs/ours_$name.log" 2>&1
      echo "ncu ours_$name: exit $?"
      IFS=, read -r b h t d causal <<< "$shape"
      timeout 240 "$ncu_bin" "${sets[@]}" --kernel-name regex:flash_bwd_dq_dk_dv --launch-skip 3 \
        --launch-count 1 -f -o "$logs/torch_$name" \
        python3 scripts/gpu/torch_bwd_shape.py "$b" "$h" "$t" "$d" "$causal" > "$logs/torch_$name.log" 2>&1
      echo "ncu torch_$name: exit $?"
      for who in ours torch; do
        export_report "$logs" "${who}_$name"
        echo "== $who $shape"
        grep -E "Duration|Registers Per|Achieved Occ|Executed Ipc A|Issue Slots Busy|Warp Cycles Per Issued|Executed Instructions  " \
          "$logs/${who}_${name}_details.txt" | head -16
        # Where the warps wait: the stall reasons' shares of the sampled cycles.
        python3 scripts/ncu_sass_stalls.py "$logs/${who}_${name}_sass.csv" --top 0 2>&1 | head -14
      done
    done ;;
  *)
    sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 2 ;;
esac
