# SPDX-License-Identifier: Apache-2.0
# tune without a build of dev variants (CI: no -DFA2BENCH_DEV_KERNELS, no GPU) exits 2 and
# says what it needs, for either kernel family; --backend takes fa2 or fa3 only.
source "$(dirname "$0")/lib.sh"
# A build with the variants tunes for real (on a GPU); what this test checks cannot happen there.
case "${FA2BENCH_DEV_BUILD:-OFF}" in
  ON | on | TRUE | true | 1) echo "skipped: this build has the tuning variants"; exit 77 ;;
esac
CFG="$SRC/configs/perf_fwd.json"
for family in fa2 fa3; do
  expect_exit 2 "$BIN" tune --backend "$family" --config "$CFG" --out "$TMP/tune_$family" --quiet
  expect_output "fa2bench tune"
  expect_output "-DFA2BENCH_DEV_KERNELS=ON"
  # One line saying why, not one per shape it could not tune.
  [ "$(grep -c 'skipping' "$TMP/out")" -eq 0 ] || { cat "$TMP/out" >&2; fail "a line per shape"; }
done
expect_exit 2 "$BIN" tune --backend fa4 --config "$CFG" --out "$TMP/tune_fa4"
expect_output "--backend"
echo "ok"
