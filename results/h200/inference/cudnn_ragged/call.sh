#!/usr/bin/env bash
# cuDNN packed (ragged) varlen, prepared in session 16 (cudnn_ragged.patch): build the patched
# tree, run the new GPU test and the existing cudnn / varlen GPU tests, then configs/varlen.json
# (fa2, cudnn, naive; padded and packed) and PyTorch's SDPA on the same batches, as
# scripts/h200/varlen.sh does. Run from the repository root with carry=[".carry"]:
#   bash results/h200/inference/cudnn_ragged/call.sh [PATCH]
set -u
patch_file=${1:-results/h200/inference/cudnn_ragged/cudnn_ragged.patch}
outdir=/tmp/cr; mkdir -p $outdir; budget=560; PACK=$OUT/cudnn_ragged.tgz
source scripts/h200/steps.sh
patched_tree $patch_file
step build 200 sh -c "cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
[ -x /tmp/b/fa2bench ] || { echo "no binary"; pack; exit 1; }
# The new test first (its stdout lists refusals, padded non-finite counts and the engines).
timeout 120 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*CudnnVarlen*' > $outdir/tests_cudnn_varlen.log 2>&1
echo "cudnn varlen tests: exit $?"; grep -E '^\[  (PASSED|FAILED)  \]|refused|padded  |runner  ' $outdir/tests_cudnn_varlen.log | head -30
# Existing: fa2/naive varlen, the peer backends (cudnn forward dense), cudnn backward (uses the
# matmul/tensor helpers the patch extends), and the catalog unit test changed by the patch.
timeout 150 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Varlen*:*PeerBackend*:*Peer*:*CudnnBwd*' \
  --gtest_brief=1 > $outdir/tests_existing.log 2>&1
echo "existing gpu tests: exit $?"; grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' $outdir/tests_existing.log | head
( cd /tmp/b && timeout 60 ctest -L unit -R 'VarlenConfig' --output-on-failure > $outdir/unit_varlen.log 2>&1; echo "unit VarlenConfig: exit $?" )
pack
# configs/varlen.json and PyTorch's baseline, as scripts/h200/varlen.sh (its checks now expect
# cudnn packed ok and compare packed fa2 with packed cuDNN).
cd /tmp/exp
timeout 200 /tmp/b/fa2bench sweep --config configs/varlen.json --target cuda --out $outdir/ours \
  --quiet > $outdir/ours.stdout 2>&1
echo "varlen sweep: exit $?"; tail -n 25 $outdir/ours.stdout
pack
PYTHONUNBUFFERED=1 timeout 150 python3 scripts/torch_sdpa_baseline.py --config configs/varlen.json \
  --fa2bench /tmp/b/fa2bench --backends flash,cudnn --only-shapes-of fa2 \
  --out $outdir/torch_sdpa.json > $outdir/torch_sdpa.log 2>&1
echo "torch flash, cudnn: exit $?"
for pair in fa2=torch-flash cudnn=torch-cudnn; do
  /tmp/b/fa2bench compare $outdir/torch_sdpa.json $outdir/ours/results.json --pair "$pair" --format md \
    > "$outdir/compare_${pair%%=*}_vs_${pair#*=}.md" 2> "$outdir/compare_${pair%%=*}.stderr"
  echo "compare $pair: exit $?"
done
/tmp/b/fa2bench compare $outdir/ours/results.json $outdir/ours/results.json --pair fa2=cudnn --format md \
  > $outdir/fa2_vs_cudnn.md 2> $outdir/fa2_vs_cudnn.stderr
echo "compare fa2=cudnn: exit $?"
pack
echo "total: $(($(date +%s) - steps_start))s"
