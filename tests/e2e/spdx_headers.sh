# SPDX-License-Identifier: Apache-2.0
# Every source file of ours (C++, CUDA, Python, shell, CMake; not data, configs or docs) names
# its licence (LICENSE, Apache-2.0) in an SPDX line among its first two lines, generated
# instantiation units included (their generators write it). Needs the git checkout to list the
# tracked files; without one it checks the source folders' files instead.
source "$(dirname "$0")/lib.sh"
tag='SPDX-License-Identifier: Apache-2.0'
cd "$SRC"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files)
else
  files=$(find src kernels tests scripts .ci CMakeLists.txt -type f | sed 's|^\./||')
fi
missing=$(grep -vE '^(tests/data|results|configs|docs)/' <<<"$files" |
  grep -E '\.(cpp|h|cu|cuh|py|sh|in)$|CMakeLists\.txt$|^\.ci/run$|\.sbatch$' |
  while read -r f; do head -2 "$f" | grep -qF "$tag" || echo "$f"; done)
[ -z "$missing" ] || fail "no '$tag' in the first two lines of: $missing"
echo "spdx headers: ok"
