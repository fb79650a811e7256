// SPDX-License-Identifier: Apache-2.0
// The memory prediction on a device (backends/predicted_memory.h) without a GPU: fa2's split-KV
// workspace equals what the launcher's choice allocates (fa2_decode_plan_for, the function
// fa2_fwd_decode_plan calls) for a table of decode shapes and multiprocessor counts, with
// hand-computed sizes for known split counts; cudnn names its plans' workspace as excluded;
// an unknown SM count names fa2's; cpu-flash's per-thread tile scratch on the CPU target.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

#include "backends/cpu_backends.h"
#include "backends/predicted_memory.h"
#include "backends/shape_params.h"
#include "core/shape_algebra.h"
#include "fa2/fa2_split_choice.h"

namespace fa2b {
namespace {

Case decode_case(std::int64_t B, std::int64_t H, std::int64_t H_kv, std::int64_t T_q,
                 std::int64_t T_k, std::int64_t D = 128, bool causal = true,
                 std::int64_t page_size = 0) {
  Case c;
  c.sweep = "decode";
  c.backend = c.role = "fa2";
  c.B = B;
  c.H = H;
  c.H_kv = H_kv;
  c.T_q = T_q;
  c.T_k = T_k;
  c.D = D;
  c.dtype = DType::bf16;
  c.causal = causal;
  c.layout = Layout::bhsd;
  if (page_size > 0) {
    c.kv_layout = KvLayout::paged;
    c.page_size = page_size;
  }
  return c;
}

TargetInfo gpu(int sms) {
  TargetInfo t;
  t.cuda = true;
  t.sms = sms;
  t.smem_per_block_optin = kSmemOptinSm90;
  return t;
}

// The launcher's plan for the case on `sms` multiprocessors, and the bytes it allocates: the
// same steps as fa2_fwd_decode_plan and Fa2CudaBackend::prepare.
std::int64_t launcher_bytes(const Case& c, int sms) {
  AttnParams p = shape_params(c);
  const Fa2SplitKv plan = fa2_decode_plan_for(p, c.varlen(), Fa2DecodeInputs{sms, kSmemOptinSm90});
  return fa2_plan_workspace_bytes(p, plan);
}

TEST(PredictedWorkspace, Fa2SplitKvEqualsTheLaunchersChoiceOverATable) {
  // No FA2BENCH_FA2_* override may move the choice under the test.
  for (const char* v : {"FA2BENCH_FA2_NUM_SMS", "FA2BENCH_FA2_SPLITS", "FA2BENCH_FA2_GQA_PACK",
                        "FA2BENCH_FA2_SMEM_LIMIT"})
    unsetenv(v);
  const Case shapes[] = {
      decode_case(1, 32, 8, 1, 131072),
      decode_case(1, 32, 32, 4, 32768),
      decode_case(8, 32, 8, 1, 4096),
      decode_case(2, 4, 2, 17, 4097, 40),
      decode_case(1, 16, 16, 16, 1000, 64),
      decode_case(3, 5, 5, 7, 3333, 96, false),
      decode_case(1, 8, 1, 1, 65536, 256),
      decode_case(2, 4, 4, 1, 1000, 128, true, 16),
      decode_case(1, 32, 8, 1, 4096, 128, true, 64),
      decode_case(1, 2, 2, 1000, 1000),
      decode_case(64, 32, 8, 1, 131072),
  };
  int split_cases = 0;
  for (const Case& c : shapes) {
    for (int sms : {1, 16, 108, 114, 132, 1000}) {
      const std::int64_t extra =
          predicted_memory_on(c, gpu(sms)).predicted_bytes - predicted_memory(c).predicted_bytes;
      EXPECT_EQ(extra, launcher_bytes(c, sms)) << c.id() << " on " << sms << " SMs";
      EXPECT_EQ(extra, fa2_split_workspace_prediction(c, gpu(sms))) << c.id();
      EXPECT_TRUE(predicted_memory_on(c, gpu(sms)).predicted_excludes.empty()) << c.id();
      split_cases += extra > 0 ? 1 : 0;
    }
  }
  EXPECT_GT(split_cases, 10);  // the table reaches the split path
}

TEST(PredictedWorkspace, KnownSplitCountsGiveTheirBytes) {
  for (const char* v : {"FA2BENCH_FA2_NUM_SMS", "FA2BENCH_FA2_SPLITS", "FA2BENCH_FA2_GQA_PACK",
                        "FA2BENCH_FA2_SMEM_LIMIT"})
    unsetenv(v);
  // B = 1, H = 32 (no GQA), T_q = 4, T_k = 32768, D = 128 on 132 SMs: 7 splits
  // (test_fa2_split_choice.cpp), each 4 * B * H * T_q * (D + 1) bytes of float32 rows and LSE.
  const Case c = decode_case(1, 32, 32, 4, 32768);
  EXPECT_EQ(fa2_split_workspace_prediction(c, gpu(132)), 7 * 4 * 1 * 32 * 4 * 129);
  // A prefill shape never splits by shape: no workspace.
  EXPECT_EQ(fa2_split_workspace_prediction(decode_case(1, 2, 2, 1000, 1000), gpu(132)), 0);
  // A paged cache with unpacked heads runs the split kernel even unsplit: one slice.
  const Case paged = decode_case(64, 32, 32, 1, 4096, 128, true, 64);
  EXPECT_EQ(fa2_split_workspace_prediction(paged, gpu(132)), 4LL * 64 * 32 * 1 * 129);
  // The forced count of the environment moves the prediction as it moves the launcher.
  setenv("FA2BENCH_FA2_SPLITS", "3", 1);
  EXPECT_EQ(fa2_split_workspace_prediction(decode_case(1, 2, 2, 1000, 1000), gpu(132)),
            3LL * 4 * 1 * 2 * 1000 * 129);
  unsetenv("FA2BENCH_FA2_SPLITS");
}

TEST(PredictedWorkspace, UnknownSmsAndCudnnNameWhatTheyLeaveOut) {
  TargetInfo unknown = gpu(0);
  const MemoryStats m = predicted_memory_on(decode_case(1, 32, 32, 4, 32768), unknown);
  ASSERT_EQ(m.predicted_excludes.size(), 1u);
  EXPECT_EQ(m.predicted_excludes[0], kFa2SplitWorkspaceExcluded);
  // A prefill shape cannot split on any device: nothing left out.
  EXPECT_TRUE(
      predicted_memory_on(decode_case(1, 2, 2, 1000, 1000), unknown).predicted_excludes.empty());
  Case cudnn = decode_case(1, 2, 2, 1000, 1000);
  cudnn.backend = cudnn.role = "cudnn";
  const MemoryStats mc = predicted_memory_on(cudnn, gpu(132));
  ASSERT_EQ(mc.predicted_excludes.size(), 1u);
  EXPECT_EQ(mc.predicted_excludes[0], "cudnn workspace");
}

TEST(PredictedWorkspace, CpuFlashScratchOnTheCpuTarget) {
  Case c = decode_case(1, 2, 2, 100, 100, 32);
  c.backend = "cpu-flash";
  TargetInfo cpu;
  cpu.cuda = false;
  for (int threads : {1, 2, 8}) {
    cpu.cpu_threads = threads;
    const std::int64_t extra =
        predicted_memory_on(c, cpu).predicted_bytes - predicted_memory(c).predicted_bytes;
    EXPECT_EQ(extra, cpu_flash_scratch(c, threads).bytes());
    // 2 heads x 2 query tiles: at most 4 threads get scratch.
    EXPECT_EQ(cpu_flash_scratch(c, threads).threads, std::min(threads, 4));
  }
  // Nothing is added for the GPU backends on the CPU target, nor for cpu-naive.
  c.backend = "cpu-naive";
  EXPECT_EQ(predicted_memory_on(c, cpu).predicted_bytes, predicted_memory(c).predicted_bytes);
}

}  // namespace
}  // namespace fa2b
