# SPDX-License-Identifier: Apache-2.0
# A check that cannot pass makes the sweep exit 1, and `check` agrees on the saved results.
source "$(dirname "$0")/lib.sh"
expect_exit 1 "$BIN" sweep --config "$SRC/tests/data/failing_check.json" --target cpu \
  --out "$TMP/run" --quiet --junit "$TMP/junit.xml"
expect_output "fail"
grep -q "<failure" "$TMP/junit.xml" || fail "junit has no failure element"
expect_exit 1 "$BIN" check "$TMP/run/results.json"
echo "ok"
