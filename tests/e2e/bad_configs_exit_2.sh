# SPDX-License-Identifier: Apache-2.0
# Every malformed config is refused with exit 2 and a message naming the JSON pointer.
source "$(dirname "$0")/lib.sh"
dir="$SRC/tests/data/bad_configs"
n=0
while IFS=$'\t' read -r file want; do
  [ -z "$file" ] && continue
  case "$file" in \#*) continue;; esac
  expect_exit 2 "$BIN" validate --config "$dir/$file"
  expect_output "$want"
  expect_exit 2 "$BIN" sweep --config "$dir/$file" --target cpu --out "$TMP/never"
  [ -e "$TMP/never/results.json" ] && fail "$file: a sweep ran despite the config error"
  n=$((n + 1))
done < "$dir/expected.txt"
[ "$n" -ge 10 ] || fail "only $n malformed configs checked"
echo "ok: $n malformed configs"
