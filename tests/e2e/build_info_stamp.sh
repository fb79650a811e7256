# SPDX-License-Identifier: Apache-2.0
# cmake/build_info.cmake, which every build runs: the header names the tree's commit, marks an
# edited tree "-dirty", follows a new commit without a reconfigure, keeps a commit given as
# FA2BENCH_GIT, and leaves the header untouched (same mtime) when nothing changed, so a rebuild
# recompiles nothing. Skips (77) without git or cmake.
source "$(dirname "$0")/lib.sh"
command -v git >/dev/null && command -v cmake >/dev/null || { echo "skip: needs git and cmake"; exit 77; }
repo=$TMP/repo
out=$TMP/build_info.h
mkdir -p "$repo"
stamp() {
  cmake -DSOURCE_DIR="$repo" -DTEMPLATE="$SRC/src/core/build_info.h.in" -DOUTPUT="$out" \
    -DPROJECT_VERSION=9.9.9 -DCMAKE_BUILD_TYPE=Release "$@" -P "$SRC/cmake/build_info.cmake" ||
    fail "build_info.cmake failed"
}
git_in() { git -C "$repo" -c user.name=t -c user.email=t@t "$@" >/dev/null 2>&1 || fail "git $*"; }
git_in init
echo one > "$repo/file"
git_in add file
git_in commit -m one
first=$(git -C "$repo" rev-parse --short=12 HEAD)
stamp
grep -qF "#define FA2BENCH_GIT \"$first\"" "$out" || fail "clean tree: want $first, got $(grep GIT "$out")"
grep -qF '#define FA2BENCH_VERSION "9.9.9"' "$out" || fail "version not written"

before=$(stat -c %Y.%N "$out" 2>/dev/null || stat -f %m "$out")
sleep 1
stamp
after=$(stat -c %Y.%N "$out" 2>/dev/null || stat -f %m "$out")
[ "$before" = "$after" ] || fail "an unchanged commit rewrote the header (a rebuild would recompile)"

echo two > "$repo/file"
stamp
grep -qF "#define FA2BENCH_GIT \"$first-dirty\"" "$out" || fail "edited tree: want $first-dirty, got $(grep GIT "$out")"

git_in commit -am two
second=$(git -C "$repo" rev-parse --short=12 HEAD)
[ "$second" != "$first" ] || fail "the test's second commit has the first's id"
stamp
grep -qF "#define FA2BENCH_GIT \"$second\"" "$out" || fail "new commit: want $second, got $(grep GIT "$out")"

stamp -DFA2BENCH_GIT=given1234
grep -qF '#define FA2BENCH_GIT "given1234"' "$out" || fail "a given FA2BENCH_GIT was not kept"

rm -rf "$repo/.git"
stamp
grep -qF '#define FA2BENCH_GIT "unknown"' "$out" || fail "no git tree: want unknown, got $(grep GIT "$out")"
echo "build info stamp: ok"
