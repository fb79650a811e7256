#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 43: every committed fa2bench run (results/MANIFEST.json: each GPU's seeds, perf grids,
# decode, ...) passes the checks its config ships today, through the same gate as `fa2bench
# check`: a config change that would fail on one card's results (an 80 GB H100's oom where a
# 141 GB H200 runs) fails here, on a machine without a GPU. $1: fa2bench, $2: source tree.
source "$(dirname "$0")/lib.sh"
cd "$SRC" || fail "no source tree"
mapfile -t runs < <(python3 - <<'PY'
import json
for r in json.load(open("results/MANIFEST.json"))["runs"]:
    if r["results_file"] == "results.json" and r.get("config"):
        print(f'{r["path"]}/results.json\t{r["config"]}\t{r["gpu"]}')
PY
)
[ "${#runs[@]}" -ge 8 ] || fail "found only ${#runs[@]} fa2bench runs in results/MANIFEST.json"
gpus=$(printf '%s\n' "${runs[@]}" | cut -f3 | sort -u | wc -l)
checked=0
for line in "${runs[@]}"; do
  IFS=$'\t' read -r results config gpu <<<"$line"
  "$BIN" check "$results" --config "$config" >"$TMP/out" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$TMP/out" >&2
    fail "$results ($gpu) fails the checks of $config (exit $rc)"
  fi
  grep -qE '^error ' "$TMP/out" && { cat "$TMP/out" >&2; fail "$results: a check in error"; }
  checked=$((checked + 1))
done
echo "PASS: $checked committed runs on $gpus GPU(s) pass their configs' checks"
