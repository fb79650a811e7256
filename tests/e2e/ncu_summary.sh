#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/ncu_summary.py: the side-by-side table of Nsight Compute raw exports (crafted here in
# ncu's raw CSV layout: metric names, a units row, one row per kernel).
source "$(dirname "$0")/lib.sh"
PY=$(command -v python3) || { echo "skip: no python3"; exit 0; }
D=$SRC/tests/data/ncu

expect_exit 0 "$PY" "$SRC/scripts/ncu_summary.py" "$D/fa2.raw.csv" "$D/flash.raw.csv"
expect_output "| metric | fa2 | flash |"
expect_output "| time | 6.2 msecond | 6682 usecond |"
expect_output "| grid | 2048 | 2048 |"
# A metric one export lacks prints "-"; "a|b" names take whichever the export has.
expect_output "| achieved occupancy % | 12.49 | - |"
expect_output "| issue slots busy % | - | 30.4 |"
# 32-byte sectors and Mbyte are turned into bytes.
expect_output "| L2 -> SM bytes | 3.2e+04 | - |"
expect_output "| DRAM read bytes | 3.109e+08 | - |"
# Stall reasons, largest mean first: short_scoreboard (1.44), wait (1.65) -> wait first.
grep -n "stall" "$TMP/out" > "$TMP/stalls"
head -1 "$TMP/stalls" | grep -qF "stall wait (cycles/issue) | 1.56 | 1.74 |" ||
  { cat "$TMP/out"; fail "wait is not the first stall row"; }
sed -n 2p "$TMP/stalls" | grep -qF "stall short_scoreboard" || fail "short_scoreboard not second"
tail -1 "$TMP/stalls" | grep -qF "stall barrier" || fail "barrier not last"

# No kernel rows: exit 1 with a message; no arguments: usage, exit 2.
printf '"ID","Kernel Name"\n' > "$TMP/empty.raw.csv"
expect_exit 1 "$PY" "$SRC/scripts/ncu_summary.py" "$TMP/empty.raw.csv"
expect_output "no kernel rows"
expect_exit 2 "$PY" "$SRC/scripts/ncu_summary.py"
expect_output "Key Nsight Compute metrics"
echo "ok"
