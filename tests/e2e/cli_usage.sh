# SPDX-License-Identifier: Apache-2.0
# Usage errors exit 2; --version and --help work and teach the exit codes.
source "$(dirname "$0")/lib.sh"
expect_exit 0 "$BIN" --version
expect_output "fa2bench 0."
expect_exit 0 "$BIN" --help
expect_output "Exit codes"
expect_exit 0 "$BIN" sweep --help
expect_output "--memory-budget"
expect_exit 2 "$BIN" sweep --no-such-flag
expect_exit 2 "$BIN"
expect_exit 2 "$BIN" sweep --target tpu
expect_exit 2 "$BIN" sweep --target cpu --memory-budget lots
expect_output "--memory-budget lots"
expect_exit 2 "$BIN" sweep --target cpu --filter "("
expect_exit 2 "$BIN" sweep --target cpu --filter "no-such-backend"
expect_exit 2 "$BIN" check "$TMP/missing.json"
printf '{"schema": "fa2bench/results/1", "cases": [' > "$TMP/trunc.json"
expect_exit 2 "$BIN" check "$TMP/trunc.json"
expect_output "trunc.json"
expect_exit 0 "$BIN" devices
echo "ok"
