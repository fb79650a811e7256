#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The peer scripts start on a machine without a GPU: their --help teaches (every flag named),
# they import the shared harness, and without PyTorch (or without a GPU, or without
# flash-attn-4) they exit 3 naming what is missing, never a traceback. $1: fa2bench, $2: source.
source "$(dirname "$0")/lib.sh"
cd "$SRC" || fail "no source tree"
for s in torch_sdpa_baseline flash_attn_baseline; do
  expect_exit 0 python3 "scripts/$s.py" --help
  expect_output "--config"
  expect_output "--mode"
  # Without --fa2bench's binary: exit 2 naming it.
  expect_exit 2 python3 "scripts/$s.py" --config configs/odd_shapes.json --out "$TMP/x.json" \
    --fa2bench "$TMP/none"
  expect_output "not found"
  # With it: whatever this machine lacks (PyTorch, a GPU, flash-attn-4) is named, exit 3.
  python3 "scripts/$s.py" --config configs/odd_shapes.json --out "$TMP/x.json" \
    --fa2bench "$BIN" >"$TMP/out" 2>&1
  rc=$?
  if [ "$rc" -ne 3 ] || ! grep -qE "not installed|not importable|no CUDA GPU" "$TMP/out" ||
     grep -q Traceback "$TMP/out"; then
    if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
      echo "skip: $s can run here (a GPU and PyTorch); this test is for machines without one"
      continue
    fi
    cat "$TMP/out" >&2
    fail "$s: expected exit 3 naming what is missing, got $rc"
  fi
done
# The wheel script's usage is its header.
expect_exit 2 scripts/gpu/fa4_wheels.sh
expect_output "fetch"
expect_output "install DIR"
echo "ok"
