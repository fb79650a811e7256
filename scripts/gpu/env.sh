# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts/gpu/*.sh device scripts: the toolchain path, and cuDNN from PyTorch's
# wheel (the GPU image has no cuDNN graph headers in the CUDA include dir). Our cudnn backend
# then loads the same libcudnn PyTorch uses, so the two are compared on one library.
export PATH=/usr/local/cuda/bin:$PATH
# The carried Debian headers and libraries travel packed (.carry/deps.tgz, 3.5 MB instead of
# 17: the working tree and the carry share one 64 MiB limit); the first script of a call
# unpacks them, whole or not at all, for the scripts that read .carry/deps.
carry_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.carry"
if [ ! -d "$carry_root/deps/usr" ] && [ -f "$carry_root/deps.tgz" ]; then
  rm -rf "$carry_root/deps.unpacking" && mkdir -p "$carry_root/deps.unpacking" &&
    tar xzf "$carry_root/deps.tgz" -C "$carry_root/deps.unpacking" &&
    mv "$carry_root/deps.unpacking/deps" "$carry_root/deps" && rm -rf "$carry_root/deps.unpacking"
fi
unset carry_root
cudnn_dir=$(python3 -c "import nvidia.cudnn as m, os; print(list(m.__path__)[0])" 2>/dev/null || true)
if [ -n "$cudnn_dir" ]; then
  if [ ! -f /usr/local/cuda/include/cudnn_graph.h ] && [ -f "$cudnn_dir/include/cudnn_graph.h" ]; then
    export CPATH="$cudnn_dir/include${CPATH:+:$CPATH}"
  fi
  [ -f "$cudnn_dir/lib/libcudnn.so.9" ] && export FA2BENCH_CUDNN_PATH="$cudnn_dir/lib/libcudnn.so.9"
fi
unset cudnn_dir

# The GPUs' clocks, temperature and power as a run starts (read only), for its records.
gpu_state() {
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
}
