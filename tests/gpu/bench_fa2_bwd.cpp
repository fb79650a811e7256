// SPDX-License-Identifier: Apache-2.0
// Timing harness for the FA2 backward (bf16), next to the forward. Disabled by default; run with
//   fa2bench_gpu_tests --gtest_also_run_disabled_tests --gtest_filter='*Fa2BwdBench*'
// One line per shape: medians of 20 CUDA-event-timed runs after 3 warm-ups of the forward, the
// backward alone and both; TFLOP/s by flash-attention's convention (forward 4 * B * H * T^2 * D,
// halved if causal; backward 2.5x, forward + backward 3.5x). FA2BENCH_BENCH_DIMS="64,256" keeps
// the shapes of those head dims only; FA2BENCH_BENCH_SHAPE="B,H,T,D,causal" times that shape alone.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "common/device_utils.h"
#include "fa2/fa2_bwd.h"
#include "fa2/fa2_fwd.h"
#include "gpu_available.h"

namespace fa2b {
namespace {

struct BenchShape {
  int B, H, T, D;
  bool causal;
};

double median_ms(const std::function<void()>& body) {
  cudaEvent_t ev0, ev1;
  cudaEventCreate(&ev0);
  cudaEventCreate(&ev1);
  for (int i = 0; i < 3; ++i) body();
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(ev0);
    body();
    cudaEventRecord(ev1);
    cudaEventSynchronize(ev1);
    float t = 0;
    cudaEventElapsedTime(&t, ev0, ev1);
    ms.push_back(t);
  }
  cudaEventDestroy(ev0);
  cudaEventDestroy(ev1);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

TEST(Fa2BwdBench, DISABLED_Table) {
  FA2B_REQUIRE_GPU();
  const std::vector<BenchShape> shapes = {
      {8, 32, 2048, 64, true},   {8, 16, 2048, 128, true},  {2, 32, 8192, 64, true},
      {2, 16, 8192, 128, true},  {2, 16, 8192, 128, false}, {2, 8, 8192, 256, true},
      {1, 16, 16384, 128, true}, {2, 32, 8192, 64, false},  {2, 8, 8192, 256, false}};
  std::vector<BenchShape> chosen;
  if (const char* one = std::getenv("FA2BENCH_BENCH_SHAPE")) {
    BenchShape s{};
    int causal = 0;
    ASSERT_EQ(std::sscanf(one, "%d,%d,%d,%d,%d", &s.B, &s.H, &s.T, &s.D, &causal), 5) << one;
    s.causal = causal != 0;
    chosen.push_back(s);
  } else if (const char* dims = std::getenv("FA2BENCH_BENCH_DIMS")) {
    std::stringstream list(dims);
    std::string item;
    while (std::getline(list, item, ',')) {
      for (const BenchShape& s : shapes) {
        if (s.D == std::atoi(item.c_str())) chosen.push_back(s);
      }
    }
  } else {
    chosen = shapes;
  }
  for (const BenchShape& s : chosen) {
    const std::size_t elems = static_cast<std::size_t>(s.B) * s.H * s.T * s.D;
    std::vector<void*> bufs(8, nullptr);
    for (void*& b : bufs) ASSERT_EQ(cudaMalloc(&b, elems * 2), cudaSuccess);
    void *q = bufs[0], *k = bufs[1], *v = bufs[2], *o = bufs[3], *d_o = bufs[4];
    float* lse = nullptr;
    ASSERT_EQ(cudaMalloc(&lse, static_cast<std::size_t>(s.B) * s.H * s.T * 4), cudaSuccess);
    const std::int64_t hs = static_cast<std::int64_t>(s.T) * s.D, bs = hs * s.H;
    for (auto [ptr, tensor] : {std::pair<void*, InputTensor>{q, InputTensor::q},
                               {k, InputTensor::k},
                               {v, InputTensor::v},
                               {d_o, InputTensor::d_o}}) {
      ASSERT_EQ(fill_inputs(ptr, KernelDType::bf16, s.B, s.H, s.T, s.D, bs, hs, s.D, 7, tensor,
                            KernelInputDist::normal, nullptr),
                cudaSuccess);
    }
    AttnBwdParams p;
    AttnParams& f = p.fwd;
    f.q = q, f.k = k, f.v = v, f.o = o, f.lse = lse;
    f.q_batch_stride = f.k_batch_stride = f.v_batch_stride = f.o_batch_stride = bs;
    f.q_head_stride = f.k_head_stride = f.v_head_stride = f.o_head_stride = hs;
    f.q_row_stride = f.k_row_stride = f.v_row_stride = f.o_row_stride = s.D;
    f.B = s.B, f.H = s.H, f.H_kv = s.H, f.T_q = s.T, f.T_k = s.T, f.D = s.D;
    f.scale = 1.0f / std::sqrt(static_cast<float>(s.D));
    f.causal = s.causal;
    f.dtype = KernelDType::bf16;
    p.d_o = d_o, p.d_q = bufs[5], p.d_k = bufs[6], p.d_v = bufs[7];
    void* ws = nullptr;
    ASSERT_EQ(cudaMalloc(&ws, fa2_bwd_workspace_bytes(f)), cudaSuccess);
    ASSERT_EQ(fa2_fwd(f, nullptr), cudaSuccess);
    const double fwd_ms = median_ms([&] { (void)fa2_fwd(f, nullptr); });
    const double bwd_ms = median_ms([&] { (void)fa2_bwd(p, ws, nullptr); });
    const double both_ms = median_ms([&] {
      (void)fa2_fwd(f, nullptr);
      (void)fa2_bwd(p, ws, nullptr);
    });
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    const double flops =
        4.0 * s.B * s.H * static_cast<double>(s.T) * s.T * s.D / (s.causal ? 2.0 : 1.0);
    std::printf(
        "FA2BWDBENCH B=%d H=%d T=%d D=%d causal=%d fwd_ms=%.3f bwd_ms=%.3f fwd_bwd_ms=%.3f "
        "fwd_tflops=%.1f bwd_tflops=%.1f fwd_bwd_tflops=%.1f\n",
        s.B, s.H, s.T, s.D, s.causal ? 1 : 0, fwd_ms, bwd_ms, both_ms, flops / fwd_ms / 1e9,
        2.5 * flops / bwd_ms / 1e9, 3.5 * flops / both_ms / 1e9);
    std::fflush(stdout);
    for (void* b : bufs) cudaFree(b);
    cudaFree(lse);
    cudaFree(ws);
  }
}

}  // namespace
}  // namespace fa2b
