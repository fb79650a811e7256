// SPDX-License-Identifier: Apache-2.0
// The model planner on the tiny model (2 layers, hidden 64, 4 heads, vocab 97, B 2, T 33,
// fp32), every number worked out by hand in the comments.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/model_plan.h"
#include "core/shape_algebra.h"
#include "tiny_model.h"

namespace fa2b {
namespace {

TEST(ModelPlan, ParameterCountsOfTheTinyModel) {
  const ModelParams p = model_params(tiny("cpu-naive"));
  // LN 2*64 + QKV 64*192 + 192 + out 64*64 + 64 + LN 2*64 + up 64*256 + 256 + down 256*64 + 64
  EXPECT_EQ(p.per_block, 128 + 12288 + 192 + 4096 + 64 + 128 + 16384 + 256 + 16384 + 64);
  EXPECT_EQ(p.per_block, 49984);
  EXPECT_EQ(p.embedding, 97 * 64);
  EXPECT_EQ(p.lm_head, 64 * 97);  // no bias
  EXPECT_EQ(p.final_ln, 128);
  EXPECT_EQ(p.total, 6208 + 2 * 49984 + 128 + 6208);
}

TEST(ModelPlan, GroupedQueryShrinksTheQkvProjection) {
  ModelCase m = tiny("cpu-naive");
  m.H_kv = 1;  // K and V of one head of 16: QKV width 64 + 2*16 = 96
  EXPECT_EQ(model_params(m).per_block, 49984 - (64 * 96 + 96));
}

TEST(ModelPlan, BytesAndPeakOfTheTinyModelWithNaiveAttention) {
  const ModelPlan p = plan_model(tiny("cpu-naive"));
  EXPECT_EQ(p.weight_bytes, 112512 * 4);
  EXPECT_EQ(p.grad_bytes, 112512 * 4);
  EXPECT_EQ(p.optimizer_bytes, 2 * 112512 * 4);  // AdamW m and v in the dtype (fp32)
  EXPECT_EQ(p.token_bytes, 66 * 4);
  // Attention B2 H4 T33 D16 fp32: saved LSE 1056 + P 2*4*33*33*4 = 34848; backward workspace
  // D_i 1056; the prepared backend holds S (fp32) + P + D_i = 34848 + 34848 + 1056.
  EXPECT_EQ(p.attention_saved_bytes, 1056 + 34848);
  EXPECT_EQ(p.attention_workspace_bytes, 1056);
  EXPECT_EQ(p.attention_backend_bytes, 70752);
  EXPECT_EQ(p.attention_instances, 2);
  // Weights, AdamW m and v, tokens, two prepared attentions; no gradients (allocated in the
  // backward, below).
  EXPECT_EQ(p.persistent_bytes, 450048 + 900096 + 264 + 2 * 70752);
  // One block, 66 tokens: LN stats 2*528, LSE 1056, five [66, 64] rows 5*16896, QKV [66, 192]
  // 50688, MLP pre and act [66, 256] 2*67584.
  EXPECT_EQ(p.block_saved_bytes, 1056 + 1056 + 84480 + 50688 + 135168);
  // Embedding output 16896 + two blocks + final LN (stats 528 + output 16896).
  EXPECT_EQ(p.activation_bytes, 16896 + 2 * 272448 + 17424);
  // Gradients per group: LM head 64*97*4 = 24832, final LN 128*4 = 512, a block 49984*4 =
  // 199936. Peak in the last block's backward: x0 + both blocks + the LM head's, the final
  // LN's and this block's gradients + dx + d_act + d_ln2. (The first block's: one block of
  // activations less, 272448, one block of gradients more, 199936.)
  EXPECT_EQ(p.peak_bytes,
            p.persistent_bytes + 16896 + 2 * 272448 + 24832 + 512 + 199936 + 16896 + 67584 + 16896);
  EXPECT_EQ(p.peak_bytes, 2380360);
  EXPECT_NE(p.peak_phase.find("last block backward"), std::string::npos);
}

// The gradients' schedule: the LM head's with dlogits, the final LN's with dx, each block's
// from its backward on, the embedding's last: every gradient and x0 + dx at the end.
TEST(ModelPlan, GradientsAreAllocatedWhereTheBackwardFirstWritesThem) {
  const ModelPlan p = plan_model(tiny("cpu-naive"));
  std::map<std::string, std::int64_t> at;
  for (const PlanPhase& ph : p.phases)
    at[ph.name.substr(0, ph.name.find(" ("))] = ph.bytes - p.persistent_bytes;
  const std::int64_t acts = 16896 + 2 * 272448 + 17424;
  EXPECT_EQ(at["forward end"], acts + 25608);  // logits [66, 97]
  EXPECT_EQ(at["LM head backward"], acts + 25608 + 24832 + 16896);
  EXPECT_EQ(at["final LayerNorm backward"], acts + 24832 + 512 + 2 * 16896);
  EXPECT_EQ(at["first block backward"],
            16896 + 272448 + 24832 + 512 + 2 * 199936 + 16896 + 67584 + 16896);
  EXPECT_EQ(at["embedding backward"], 2 * 16896 + p.grad_bytes);
  // Embedding 97*64*4, two blocks, final LN, LM head 64*97*4.
  EXPECT_EQ(p.grad_bytes, 24832 + 2 * 199936 + 512 + 24832);
}

TEST(ModelPlan, RecomputeKeepsOnlyBlockInputsAndOneAttention) {
  ModelCase m = tiny("cpu-naive");
  m.recompute = true;
  const ModelPlan p = plan_model(m);
  EXPECT_EQ(p.attention_instances, 1);
  EXPECT_EQ(p.block_saved_bytes, 16896);
  EXPECT_EQ(p.persistent_bytes, 450048 + 900096 + 264 + 70752);
  // With so little activation memory the gradients decide: the peak is the first block's
  // backward: x0, x1 (checkpoints), block 0 recomputed less its x_next, the LM head's, the final
  // LN's and both blocks' gradients, dx, d_act, d_ln2.
  EXPECT_EQ(p.peak_bytes, p.persistent_bytes + 2 * 16896 + (272448 - 16896) + 24832 + 512 +
                              2 * 199936 + 16896 + 67584 + 16896);
  EXPECT_EQ(p.peak_bytes, 2237096);
  EXPECT_NE(p.peak_phase.find("first block backward"), std::string::npos);
  EXPECT_LT(p.peak_bytes, plan_model(tiny("cpu-naive")).peak_bytes);
}

// A backend that saves only the LSE (the step's buffer) holds nothing between a layer's forward
// and backward: one prepared backend (its workspace) serves both layers.
TEST(ModelPlan, FlashAttentionHoldsOnlyItsRowSumsOnceForAllLayers) {
  const ModelPlan p = plan_model(tiny("cpu-flash"));
  EXPECT_EQ(p.attention_saved_bytes, 1056);  // the LSE only
  EXPECT_EQ(p.attention_backend_bytes, 1056);
  EXPECT_EQ(p.attention_instances, 1);
  EXPECT_EQ(plan_model(tiny("cpu-naive")).peak_bytes - p.peak_bytes, 2 * 70752 - 1056);
}

TEST(ModelPlan, OptimizerNoneDropsTheState) {
  ModelCase m = tiny("cpu-flash");
  m.optimizer = Optimizer::none;
  EXPECT_EQ(plan_model(m).optimizer_bytes, 0);
  EXPECT_EQ(plan_model(tiny("cpu-flash")).peak_bytes - plan_model(m).peak_bytes, 900096);
}

// PyTorch's AdamW keeps exp_avg and exp_avg_sq in the parameter's dtype: bf16 halves them too.
TEST(ModelPlan, Bf16HalvesWeightsActivationsAndAdamState) {
  ModelCase m = tiny("fa2");
  m.dtype = DType::bf16;
  const ModelPlan p = plan_model(m);
  EXPECT_EQ(p.weight_bytes, 112512 * 2);
  EXPECT_EQ(p.optimizer_bytes, 2 * 112512 * 2);
  // Activations: rows in bf16, LN stats and LSE stay float32.
  EXPECT_EQ(p.block_saved_bytes, 1056 + 1056 + (84480 + 50688 + 135168) / 2);
  // fa2's backend state: fp32 dQ accumulator and row sums, 4*B*H*T*(D_tile+1), where D = 16
  // runs in D = 32's tile.
  EXPECT_EQ(p.attention_backend_bytes, 4 * 2 * 4 * 33 * 33);
}

// The CUDA step's own persistent buffers, for a backend that runs on the device only: cuBLASLt's
// 32 MiB workspace; float32 partials of 64 row chunks times the widest reduced row (the MLP's
// 256 columns here; LayerNorm's 2 * 64 and QKV's 192 are narrower) plus 16 bytes for the loss;
// the token index (order 66, segment starts 67, segment tokens 66, int32).
TEST(ModelPlan, TheCudaStepsOwnBuffersArePersistent) {
  ModelCase m = tiny("fa2");
  m.dtype = DType::bf16;
  const DeviceStepBytes d = device_step_bytes(m);
  EXPECT_EQ(d.gemm_workspace, 32 << 20);
  EXPECT_EQ(d.reduce_chunks, 64);
  EXPECT_EQ(d.reduce_partials, 4 * 64 * 256 + 16);
  EXPECT_EQ(d.token_index, 4 * (66 + 67 + 66));
  const ModelPlan p = plan_model(m);
  EXPECT_EQ(p.device_step_bytes, d.total());
  EXPECT_EQ(p.persistent_bytes, p.weight_bytes + p.optimizer_bytes + p.token_bytes + d.total() +
                                    p.attention_backend_bytes);
  EXPECT_EQ(p.attention_instances, 1);  // fa2 saves only the LSE
  // Fewer tokens than chunks: one chunk per token; the loss's 1024 partials set the floor.
  m.B = 1;
  m.T = 3;
  EXPECT_EQ(device_step_bytes(m).reduce_chunks, 3);
  EXPECT_EQ(device_step_bytes(m).reduce_partials, 4 * 1024 + 16);
  // The host step has none of them.
  EXPECT_EQ(device_step_bytes(tiny("cpu-flash")).total(), 0);
  EXPECT_EQ(plan_model(tiny("cpu-flash")).device_step_bytes, 0);
}

TEST(ModelPlan, Flops) {
  const ModelPlan p = plan_model(tiny("cpu-flash"));
  EXPECT_DOUBLE_EQ(p.dense_flops, 6.0 * 112512 * 66);
  // Causal forward 4*2*4*33*33*16/2 = 278784, times 3.5, two layers.
  EXPECT_DOUBLE_EQ(p.attention_flops, 278784.0 * 3.5 * 2);
  EXPECT_DOUBLE_EQ(p.flops, 44554752.0 + 1951488.0);
}

}  // namespace
}  // namespace fa2b
