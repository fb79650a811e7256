#!/usr/bin/env bash
# Builds fa2bench on a GPU machine that lacks the Debian header packages: they travel
# unpacked under .carry/deps (apt-get download + dpkg -x, see README "Development").
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
build=${FA2BENCH_BUILD_DIR:-build-h200}
# The copy on the GPU machine has no .git: the commit travels in .carry/git_sha.
git_flag=()
[ -f .carry/git_sha ] && git_flag=(-DFA2BENCH_GIT="$(cat .carry/git_sha)")
# cuDNN's graph headers are not in the GPU image's CUDA include dir; PyTorch's cuDNN wheel
# carries them (without them the cudnn backend builds as a stub that says so).
if [ ! -f /usr/local/cuda/include/cudnn_graph.h ]; then
  inc=$(python3 -c "import nvidia.cudnn as m, os; print(os.path.join(list(m.__path__)[0], 'include'))" 2>/dev/null)
  [ -n "$inc" ] && [ -f "$inc/cudnn_graph.h" ] && export CPATH="$inc${CPATH:+:$CPATH}"
fi
start=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$PWD/.carry/deps/usr" "${git_flag[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
echo "build: $(( $(date +%s) - start ))s"
