#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200: Nsight Compute profiles of one fa2 launch per case, and of PyTorch's flash
# kernel on the same shape, so that the two are read side by side. For each case id it writes
#   results/h200/profile/<label>/<case>.{fa2,torch-flash}.details.txt   (ncu --page details)
#   results/h200/profile/<label>/<case>.{fa2,torch-flash}.raw.csv       (ncu --page raw)
# and one line per kernel of key metrics to results/h200/profile/<label>/summary.md
# (scripts/ncu_summary.py). The clocks are left alone (--clock-control none; see the device
# notes); ncu flushes the caches before each replayed pass.
#   PROFILE_LABEL=v4 scripts/h200/profile.sh BIN CONFIG CASE_ID...
#   e.g. scripts/h200/profile.sh build-h200/fa2bench configs/perf_fwd.json B8-H16-T2048-D128/bf16/causal
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=$1 config=$2
shift 2
label=${PROFILE_LABEL:-shipped}
dir=results/h200/profile/$label
mkdir -p "$dir"
ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)
[ -n "$ncu_bin" ] || { echo "profile.sh: ncu not found" >&2; exit 2; }
sets=(--clock-control none --set full --import-source no)
for case_id in "$@"; do
  file=$(echo "$case_id" | tr '/' '_')
  # One fa2 launch: --profile-once runs the case's kernel exactly once (no warm-ups, no
  # verification run, one sample), so nothing is skipped; ncu's replay needs no warm-up (it
  # restores memory and flushes the caches before each pass). --no-isolate keeps it in this
  # process.
  "$ncu_bin" "${sets[@]}" -k regex:fa2_fwd_kernel --launch-skip 0 --launch-count 1 \
    -f -o "/tmp/$file.fa2" "$bin" sweep --config "$config" --target cuda --no-isolate --quiet \
    --backends fa2 --filter "^fa2/$case_id\$" --out "/tmp/profile_sweep_$file" --overwrite \
    --profile-once \
    > "$dir/$file.fa2.log" 2>&1
  echo "ncu fa2 $case_id: exit $?"
  # Same shape through PyTorch's flash backend (shape B-H-T-D/dtype/causal|full).
  IFS='-/' read -r b h t d dtype mask <<< "$case_id"
  "$ncu_bin" "${sets[@]}" -k regex:flash_fwd --launch-skip 2 --launch-count 1 \
    -f -o "/tmp/$file.torch-flash" python3 - "${b#B}" "${h#H}" "${t#T}" "${d#D}" "$dtype" "$mask" \
    > "$dir/$file.torch-flash.log" 2>&1 <<'EOF'
import sys, torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
B, H, T, D = map(int, sys.argv[1:5])
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[sys.argv[5]]
q, k, v = (torch.randn(B, H, T, D, device="cuda", dtype=dt) for _ in range(3))
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v, is_causal=sys.argv[6] == "causal")
torch.cuda.synchronize()
EOF
  echo "ncu torch-flash $case_id: exit $?"
  for who in fa2 torch-flash; do
    [ -f "/tmp/$file.$who.ncu-rep" ] || continue
    "$ncu_bin" --import "/tmp/$file.$who.ncu-rep" --page details > "$dir/$file.$who.details.txt"
    "$ncu_bin" --import "/tmp/$file.$who.ncu-rep" --page raw --csv > "$dir/$file.$who.raw.csv"
  done
done
python3 scripts/ncu_summary.py "$dir"/*.raw.csv > "$dir/summary.md"
cat "$dir/summary.md"
