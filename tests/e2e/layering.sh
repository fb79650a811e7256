# SPDX-License-Identifier: Apache-2.0
# The dependency order of the source folders (docs/development.md): a folder may include only
# its own layer and the layers before it, never one after it. The link enforces it too (one
# static library per layer, CMakeLists.txt's FA2BENCH_LAYERS), whose order is checked here.
#   core -> runtime -> kernels -> backends -> verify -> io -> runner/model -> config/checks -> report
#        -> compare -> app -> cli (and main.cpp)
# Every #include "..." under src/ and kernels/ is checked; the test fails on any include that
# points up the order and is not in ALLOWED below.
# Inside kernels/, the folders are ordered too: common -> hopper -> the families (naive,
# standard, fa2, fa3). A family includes its own folder, common and hopper, never another
# family: what two families share lives in kernels/common (see kernel_include_ok).
source "$(dirname "$0")/lib.sh"

# Layer of a folder (src/<folder>, or kernels/ for every kernel folder) or of an include's first
# path component; empty for what is no layer of ours (generated build_info.h, system headers).
rank_of() {
  case "$1" in
    core) echo 0 ;;
    runtime) echo 1 ;;
    kernels | common | fa2 | fa3 | hopper | naive | standard) echo 2 ;;
    backends) echo 3 ;;
    verify) echo 4 ;;
    io) echo 5 ;;
    runner | model) echo 6 ;;
    config | checks) echo 7 ;;
    report) echo 8 ;;
    compare) echo 9 ;;
    app) echo 10 ;;
    cli | main.cpp) echo 11 ;;
    *) echo "" ;;
  esac
}

# Whether kernels/<from>/ may include "<to>/...": its own folder, common, and (from a family)
# hopper's Hopper-only helpers.
kernel_include_ok() {
  local from=$1 to=$2
  [ "$from" = "$to" ] && return 0
  [ "$to" = common ] && return 0
  [ "$to" = hopper ] && [ "$from" != common ] && return 0
  return 1
}

# Known inversions, "<file> -> <included>", each with a comment saying why it is still there.
# None today; an entry that stops matching fails the test (see the end).
ALLOWED=()

# Arrows the order permits but that must not exist: "<layer> -> <included layer>", and why.
FORBIDDEN=(
  # Parsing a config needs backend names only, which the catalog in core has.
  "config -> backends"
)

cd "$SRC" || fail "no source tree at $SRC"
violations=0
checked=0
while IFS= read -r file; do
  if [[ $file == kernels/* ]]; then
    layer=kernels
  else
    layer=${file#src/}
    layer=${layer%%/*}
  fi
  own=$(rank_of "$layer")
  [ -n "$own" ] || fail "$file: folder '$layer' has no place in the order (add it to rank_of)"
  while IFS= read -r inc; do
    target=$(rank_of "${inc%%/*}")
    [ -n "$target" ] || continue
    checked=$((checked + 1))
    if [ "$layer" = kernels ] && [ "$target" -eq 2 ]; then
      folder=${file#kernels/}
      folder=${folder%%/*}
      if ! kernel_include_ok "$folder" "${inc%%/*}"; then
        echo "layering: $file -> $inc (kernels/$folder may include only its own folder," \
          "common and hopper: share through kernels/common)" >&2
        violations=$((violations + 1))
      fi
    fi
    for f in "${FORBIDDEN[@]}"; do
      if [ "$f" = "$layer -> ${inc%%/*}" ]; then
        echo "layering: $file -> $inc (forbidden: $f)" >&2
        violations=$((violations + 1))
      fi
    done
    if [ "$target" -gt "$own" ]; then
      entry="$file -> $inc"
      allowed=0
      for a in "${ALLOWED[@]+"${ALLOWED[@]}"}"; do [ "$a" = "$entry" ] && allowed=1; done
      if [ "$allowed" -eq 0 ]; then
        echo "layering: $entry (a $layer file includes a later layer)" >&2
        violations=$((violations + 1))
      fi
    fi
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$file")
done < <(find src kernels -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) | sort)

# An allowlist entry that no longer matches is stale: remove it so the inversion cannot return.
for a in "${ALLOWED[@]+"${ALLOWED[@]}"}"; do
  f=${a%% -> *}
  inc=${a#* -> }
  grep -qE "^[[:space:]]*#[[:space:]]*include[[:space:]]+\"$inc\"" "$f" 2>/dev/null ||
    { echo "layering: stale allowlist entry: $a" >&2; violations=$((violations + 1)); }
done

# The linker enforces the same order (CMakeLists.txt: one static library per layer, each
# linking only the one before it). Its list must be this order: walk it and compare ranks.
layers=$(sed -nE 's/^set\(FA2BENCH_LAYERS (.*)\)$/\1/p' CMakeLists.txt)
[ -n "$layers" ] || fail "CMakeLists.txt has no set(FA2BENCH_LAYERS ...)"
last=-1
for layer in $layers; do
  folders=$(sed -nE "s/^set\(FA2BENCH_LAYER_FOLDERS_${layer} (.*)\)$/\1/p" CMakeLists.txt)
  [ -n "$folders" ] || folders=$layer
  for folder in $folders; do
    r=$(rank_of "$folder")
    [ -n "$r" ] || fail "CMake layer $layer: folder $folder has no place in rank_of"
    [ "$r" -gt "$last" ] || [ "$r" -eq "$last" ] ||
      fail "CMake layer $layer ($folder, rank $r) comes after rank $last: the orders differ"
  done
  last=$(rank_of "${folders%% *}")
done
for folder in $(ls src); do
  [ -d "src/$folder" ] || continue
  grep -qwE "$folder" <<<"$layers $(sed -nE 's/^set\(FA2BENCH_LAYER_FOLDERS_[a-z]+ (.*)\)$/\1/p' CMakeLists.txt)" ||
    fail "src/$folder is in no CMake layer (CMakeLists.txt FA2BENCH_LAYERS)"
done

[ "$checked" -gt 100 ] || fail "only $checked includes checked: is the tree at $SRC?"
[ "$violations" -eq 0 ] || fail "$violations include(s) against the layer order"
echo "ok ($checked includes checked)"
