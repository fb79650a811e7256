# SPDX-License-Identifier: Apache-2.0
# The first command a new user types does something useful: the built-in quickstart.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
expect_exit 0 "$BIN" sweep --target cpu --out "$TMP/qs"
expect_output "checks passed"
[ -s "$TMP/qs/summary.md" ] || fail "no summary.md"
grep -q "Speedup\|speedup" "$TMP/qs/summary.md" || fail "summary lacks speedups"
echo "ok"
