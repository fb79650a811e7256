#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200: our cudnn backend beside PyTorch's cudnn SDPA on the seed_article shapes (B4 H32
# D128 bf16 causal, T = 1K..32K), in one job and on one libcudnn (scripts/h200/env.sh). Equal
# work is ours (O and the Stats/logsumexp output, as fa2 writes) against torch --with-lse;
# torch's inference forward (O only) is timed too, for reference.
# Writes results/h200/peers/{cudnn/, torch_sdpa_lse.json, torch_sdpa_inference.json, table.md}.
#   scripts/h200/peers.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=${1:-build-h200}
bin=$build/fa2bench
dir=results/h200/peers
rm -rf "$dir" && mkdir -p "$dir"
# Exit 1 is expected: the config's checks on the other backends have no cases here.
$bin sweep --config configs/seed_article.json --target cuda --backends cudnn \
  --out "$dir/cudnn" --quiet > "$dir/cudnn.stdout" 2>&1
echo "cudnn: exit $?"
for mode in lse inference; do
  flag=""
  [ $mode = lse ] && flag=--with-lse
  PYTHONUNBUFFERED=1 python3 scripts/torch_sdpa_baseline.py --config configs/seed_article.json \
    --fa2bench "$bin" --backends cudnn $flag --out "$dir/torch_sdpa_$mode.json" \
    > "$dir/torch_sdpa_$mode.log" 2>&1
  echo "torch cudnn ($mode): exit $?"
done
for mode in lse inference; do
  $bin compare "$dir/torch_sdpa_$mode.json" "$dir/cudnn/results.json" --pair cudnn=torch-cudnn \
    --format md > "$dir/compare_$mode.md" 2>/dev/null
done
sed -n '/^| new backend/,/^$/p' "$dir/compare_lse.md" | cut -d'|' -f2-9
