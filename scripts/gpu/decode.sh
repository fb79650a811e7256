#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200, in one job: configs/decode.json (fa2 with its decode plan, cudnn, naive); fa2
# again without the plan (FA2BENCH_FA2_SPLITS=1 FA2BENCH_FA2_GQA_PACK=0: the plain kernel, for
# issue 20's ">= 3x fa2 without split-KV"); PyTorch flash and cuDNN SDPA on the same cases
# (--with-lse: the logsumexp written, as fa2 and our cudnn write it). Then the comparisons.
# Writes results/h200/inference/decode/{ours/, fa2_plain/, torch_sdpa.json, compare_*.md}, or
# the same under $DECODE_DIR.
#   scripts/h200/decode.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=${1:-build-h200}
bin=$build/fa2bench
dir=${DECODE_DIR:-results/h200/inference/decode}
rm -rf "$dir" && mkdir -p "$dir"
gpu_state > "$dir/gpu_state_start.csv"
# DECODE_BACKENDS (e.g. "fa2 cudnn") runs fewer backends than the config lists: naive is the
# slowest by far on the long caches.
$bin sweep --config configs/decode.json --target cuda --out "$dir/ours" --quiet \
  ${DECODE_BACKENDS:+--backends $DECODE_BACKENDS} > "$dir/ours.stdout" 2>&1
echo "decode sweep (${DECODE_BACKENDS:-fa2, cudnn, naive}): exit $?"
PYTHONUNBUFFERED=1 python3 scripts/torch_sdpa_baseline.py --config configs/decode.json \
  --fa2bench "$bin" --backends flash,cudnn --with-lse --only-shapes-of fa2 \
  --out "$dir/torch_sdpa.json" > "$dir/torch_sdpa.log" 2>&1
echo "torch flash, cudnn: exit $?"
# Exit 1 is expected here: the config's cudnn and naive checks have no cases. DECODE_PLAIN=0
# skips this run (a short device call).
if [ "${DECODE_PLAIN:-1}" != 0 ]; then
  FA2BENCH_FA2_SPLITS=1 FA2BENCH_FA2_GQA_PACK=0 $bin sweep --config configs/decode.json \
    --target cuda --backends fa2 --out "$dir/fa2_plain" --quiet > "$dir/fa2_plain.stdout" 2>&1
  echo "fa2 without the decode plan: exit $?"
fi
$bin compare "$dir/torch_sdpa.json" "$dir/ours/results.json" --pair fa2=torch-flash \
  --format md > "$dir/compare_fa2_vs_torch_flash.md" 2>/dev/null
$bin compare "$dir/torch_sdpa.json" "$dir/ours/results.json" --pair cudnn=torch-cudnn \
  --format md > "$dir/compare_cudnn_vs_torch_cudnn.md" 2>/dev/null
[ -f "$dir/fa2_plain/results.json" ] &&
  $bin compare "$dir/fa2_plain/results.json" "$dir/ours/results.json" \
    --format md > "$dir/compare_fa2_plan_vs_plain.md" 2>/dev/null
# The decode plan each fa2 case ran, and its bandwidth.
python3 - "$dir/ours/results.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    if c["backend"] == "fa2":
        print(f'{c["id"]:60s} {c["status"]:6s} gbps {c.get("gbps") or 0:8.1f}  {c.get("backend_info", "")}')
PY
