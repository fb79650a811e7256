#!/usr/bin/env bash
# On the H200: our cudnn backend beside PyTorch's cudnn SDPA on the seed_article shapes (B4 H32
# D128 bf16 causal, T = 1K..32K), in one job and on one libcudnn (scripts/h200/env.sh), both
# with and without the logsumexp (Stats) output, so that equal work is compared:
#   ours with Stats  vs torch --with-lse   (what fa2 computes: O and LSE)
#   ours without (FA2BENCH_CUDNN_STATS=0) vs torch inference (O only)
# Writes results/h200/peers/{cudnn_stats,cudnn_nostats}/ and torch_sdpa{,_lse}.json.
#   scripts/h200/peers.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=${1:-build-h200}
bin=$build/fa2bench
dir=results/h200/peers
mkdir -p "$dir"
for mode in stats nostats; do
  stats=1
  [ $mode = nostats ] && stats=0
  FA2BENCH_CUDNN_STATS=$stats $bin sweep --config configs/seed_article.json --target cuda \
    --backends cudnn --out "$dir/cudnn_$mode" --quiet > "$dir/cudnn_$mode.stdout" 2>&1
  echo "cudnn ($mode): exit $?"
done
for lse in "" --with-lse; do
  name=torch_sdpa${lse:+_lse}
  PYTHONUNBUFFERED=1 python3 scripts/torch_sdpa_baseline.py --config configs/seed_article.json \
    --fa2bench "$bin" --backends cudnn $lse --out "$dir/$name.json" > "$dir/$name.log" 2>&1
  echo "torch cudnn ${lse:-(inference)}: exit $?"
done
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
def load(path, backend):
    out = {}
    for c in json.load(open(path))["cases"]:
        if c["backend"] == backend and c["status"] == "ok":
            out[c["params"]["T_q"]] = (c["time_ms"]["median"], c.get("backend_info", ""))
    return out
ours = {m: load(f"{d}/cudnn_{m}/results.json", "cudnn") for m in ("stats", "nostats")}
torch = {m: load(f"{d}/{f}.json", "torch-cudnn") for m, f in (("stats", "torch_sdpa_lse"), ("nostats", "torch_sdpa"))}
print("T | ours+Stats | torch+LSE | ratio | ours no Stats | torch inference | ratio | engine (ours, Stats / no Stats)")
for T in sorted(ours["stats"]):
    row = [str(T)]
    for m in ("stats", "nostats"):
        a, b = ours[m].get(T), torch[m].get(T)
        row += [f"{a[0]:.3f}" if a else "-", f"{b[0]:.3f}" if b else "-",
                f"{a[0] / b[0]:.3f}" if a and b else "-"]
    row.append(f"{ours['stats'][T][1]} / {ours['nostats'].get(T, (0, '-'))[1]}")
    print(" | ".join(row))
PY
