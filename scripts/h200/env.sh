# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts/h200/*.sh device scripts: the toolchain path, and cuDNN from PyTorch's
# wheel (the GPU image has no cuDNN graph headers in the CUDA include dir). Our cudnn backend
# then loads the same libcudnn PyTorch uses, so the two are compared on one library.
export PATH=/usr/local/cuda/bin:$PATH
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
