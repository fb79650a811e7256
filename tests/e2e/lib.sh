# SPDX-License-Identifier: Apache-2.0
# Shared helpers for the end-to-end tests: $1 is the fa2bench binary, $2 the source tree.
set -uo pipefail
BIN=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_exit CODE CMD...: runs CMD, captures stdout+stderr in $TMP/out, checks the exit code.
expect_exit() {
  local want=$1; shift
  "$@" >"$TMP/out" 2>&1
  local got=$?
  if [ "$got" -ne "$want" ]; then
    cat "$TMP/out" >&2
    fail "expected exit $want, got $got: $*"
  fi
}
expect_output() { grep -qF -- "$1" "$TMP/out" || { cat "$TMP/out" >&2; fail "output lacks: $1"; }; }
