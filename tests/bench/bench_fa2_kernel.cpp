// SPDX-License-Identifier: Apache-2.0
// Timing harness for the FA2 forward kernel (bf16). Disabled by default; run with
//   fa2bench_gpu_tests --gtest_also_run_disabled_tests --gtest_filter='*Fa2Bench*'
// Prints one line per (shape, tile variant): median of 20 CUDA-event-timed launches after 3
// warm-ups, and TFLOP/s by flash-attention's convention (4 * B * H * T^2 * D, halved if causal).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "common/device_utils.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_fwd_launch.h"
#include "gpu_available.h"

namespace fa2b {
namespace {

struct BenchShape {
  int B, H, T, D;
  bool causal;
};

TEST(Fa2Bench, DISABLED_Table) {
  FA2B_REQUIRE_GPU();
  std::vector<BenchShape> shapes;
  for (int D : {64, 128, 256}) {
    for (int T : {2048, 8192}) {
      for (bool causal : {false, true}) shapes.push_back({16384 / T, 2048 / D, T, D, causal});
    }
  }
  shapes.push_back({4, 32, 8192, 128, false});
  shapes.push_back({4, 32, 8192, 128, true});

  cudaEvent_t ev0, ev1;
  ASSERT_EQ(cudaEventCreate(&ev0), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&ev1), cudaSuccess);
  for (const BenchShape& s : shapes) {
    const std::int64_t elems = static_cast<std::int64_t>(s.B) * s.H * s.T * s.D;
    void *q, *k, *v, *o;
    float* lse;
    ASSERT_EQ(cudaMalloc(&q, elems * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&k, elems * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&v, elems * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&o, elems * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&lse, static_cast<std::size_t>(s.B) * s.H * s.T * 4), cudaSuccess);
    const std::int64_t hs = static_cast<std::int64_t>(s.T) * s.D, bs = hs * s.H;
    for (auto [ptr, tensor] : {std::pair<void*, InputTensor>{q, InputTensor::q},
                               {k, InputTensor::k},
                               {v, InputTensor::v}}) {
      ASSERT_EQ(fill_inputs(ptr, KernelDType::bf16, s.B, s.H, s.T, s.D, bs, hs, s.D, 7, tensor,
                            KernelInputDist::normal, nullptr),
                cudaSuccess);
    }
    AttnParams p;
    p.q = q, p.k = k, p.v = v, p.o = o, p.lse = lse;
    p.q_batch_stride = p.k_batch_stride = p.v_batch_stride = p.o_batch_stride = bs;
    p.q_head_stride = p.k_head_stride = p.v_head_stride = p.o_head_stride = hs;
    p.q_row_stride = p.k_row_stride = p.v_row_stride = p.o_row_stride = s.D;
    p.B = s.B, p.H = s.H, p.H_kv = s.H, p.T_q = s.T, p.T_k = s.T, p.D = s.D;
    p.scale = 1.0f / std::sqrt(static_cast<float>(s.D));
    p.causal = s.causal;
    p.dtype = KernelDType::bf16;
    const double flops =
        4.0 * s.B * s.H * static_cast<double>(s.T) * s.T * s.D / (s.causal ? 2.0 : 1.0);
    for (int variant = 0; variant < 4; ++variant) {
      if (fa2_fwd_dev_variant(p, variant, nullptr) != cudaSuccess) {
        (void)cudaGetLastError();
        continue;
      }
      for (int i = 0; i < 3; ++i) ASSERT_EQ(fa2_fwd_dev_variant(p, variant, nullptr), cudaSuccess);
      std::vector<float> ms;
      for (int i = 0; i < 20; ++i) {
        ASSERT_EQ(cudaEventRecord(ev0), cudaSuccess);
        ASSERT_EQ(fa2_fwd_dev_variant(p, variant, nullptr), cudaSuccess);
        ASSERT_EQ(cudaEventRecord(ev1), cudaSuccess);
        ASSERT_EQ(cudaEventSynchronize(ev1), cudaSuccess);
        float t = 0;
        ASSERT_EQ(cudaEventElapsedTime(&t, ev0, ev1), cudaSuccess);
        ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      const double med = ms[ms.size() / 2];
      std::printf("FA2BENCH B=%d H=%d T=%d D=%d causal=%d variant=%d ms=%.4f tflops=%.1f\n", s.B,
                  s.H, s.T, s.D, s.causal ? 1 : 0, variant, med, flops / (med * 1e-3) / 1e12);
    }
    std::fflush(stdout);
    cudaFree(q), cudaFree(k), cudaFree(v), cudaFree(o), cudaFree(lse);
  }
  cudaEventDestroy(ev0);
  cudaEventDestroy(ev1);
}

}  // namespace
}  // namespace fa2b
