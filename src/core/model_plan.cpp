// SPDX-License-Identifier: Apache-2.0
#include "core/model_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <limits>

#include "core/backend_catalog.h"
#include "core/shape_algebra.h"

namespace fa2b {

ModelParams model_params(const ModelCase& m) {
  const std::int64_t h = m.hidden, w = m.qkv_width(), f = m.mlp_hidden();
  ModelParams p;
  p.embedding = m.vocab * h;
  p.per_block = 2 * h         // LayerNorm 1: gamma, beta
                + h * w + w   // fused QKV projection
                + h * h + h   // output projection
                + 2 * h       // LayerNorm 2
                + h * f + f   // MLP up
                + f * h + h;  // MLP down
  p.final_ln = 2 * h;
  p.lm_head = h * m.vocab;  // no bias
  p.total = p.embedding + m.layers * p.per_block + p.final_ln + p.lm_head;
  return p;
}

ActivationShapes activation_shapes(const ModelCase& m) {
  const std::int64_t n = m.tokens();
  return {n * m.hidden, n * m.qkv_width(), n * m.mlp_hidden(),
          n * m.vocab,  2 * n * 4,         4 * m.B * m.heads * m.T};
}

DeviceStepBytes device_step_bytes(const ModelCase& m) {
  DeviceStepBytes d;
  if (!is_device_backend(m.backend)) return d;
  const std::int64_t n = m.tokens();
  d.gemm_workspace = kModelGemmWorkspaceBytes;
  d.reduce_chunks = std::min(kModelReduceChunks, n);
  const std::int64_t widest = std::max({2 * m.hidden, m.qkv_width(), m.mlp_hidden()});
  d.reduce_partials = 4 * std::max(d.reduce_chunks * widest, kModelLossPartials) + 16;
  d.token_index = 4 * (3 * n + 1);
  return d;
}

ModelPlan plan_model(const ModelCase& m) {
  ModelPlan plan;
  plan.params = model_params(m);
  const std::int64_t e = dtype_bytes(m.dtype);
  const std::int64_t P = plan.params.total;
  plan.weight_bytes = P * e;
  plan.grad_bytes = P * e;
  // AdamW's m and v in the parameters' dtype, as PyTorch's AdamW keeps them (exp_avg and
  // exp_avg_sq are zeros_like(param)); no float32 master weights.
  plan.optimizer_bytes = m.optimizer == Optimizer::adamw ? 2 * P * e : 0;
  plan.token_bytes = 4 * m.tokens();
  plan.device_step_bytes = device_step_bytes(m).total();

  const Case ac = m.attention_case();
  plan.attention_saved_bytes = saved_bytes(ac);
  plan.attention_workspace_bytes = backward_workspace_bytes(ac);
  plan.attention_backend_bytes =
      predicted_memory(ac).predicted_bytes - io_bytes(ac) - grad_io_bytes(ac);
  // A backend whose forward saves nothing but the LSE (fa2, cudnn, cpu-flash: O and the LSE are
  // the step's buffers) holds only its backward workspace, so one prepared backend serves every
  // layer; one that saves P inside (naive, standard, cpu-naive) needs one per layer, its state
  // living until that layer's backward, unless recompute runs each layer's forward right before
  // its backward.
  const bool saves_only_lse = plan.attention_saved_bytes == 4 * m.B * m.heads * m.T;
  plan.attention_instances = m.recompute || saves_only_lse ? 1 : static_cast<int>(m.layers);
  // Gradients are not persistent (below): PyTorch's zero_grad(set_to_none=True).
  plan.persistent_bytes = plan.weight_bytes + plan.optimizer_bytes + plan.token_bytes +
                          plan.device_step_bytes +
                          plan.attention_instances * plan.attention_backend_bytes;

  // Bytes of the activations, named as the step (src/model/model_step.cpp) names its buffers.
  const ActivationShapes s = activation_shapes(m);
  const std::int64_t xh = s.row_h * e, xq = s.row_qkv * e, xf = s.row_mlp * e, xv = s.row_vocab * e;
  // One block's forward: ln1 stats, ln1 out, qkv, LSE, attention out, x_mid (residual after
  // attention), ln2 stats, ln2 out, MLP pre-activation, MLP activation, x_next (the block's
  // output, the next block's input).
  const std::int64_t block_full = 2 * s.ln_stats_bytes + s.lse_bytes + 5 * xh + xq + 2 * xf;
  const std::int64_t final_ln = s.ln_stats_bytes + xh;  // final LN stats and output
  const std::int64_t x0 = xh;                           // the embedding's output
  const std::int64_t L = m.layers;
  plan.block_saved_bytes = m.recompute ? xh : block_full;
  const std::int64_t saved_blocks = L * plan.block_saved_bytes;
  plan.activation_bytes = x0 + saved_blocks + final_ln;

  // Gradients, as PyTorch holds them with zero_grad(set_to_none=True): each group is allocated
  // when the backward first writes it (the LM head's, the final LayerNorm's, one block's at the
  // start of its backward, the embedding's) and all are dropped when the next step starts; the
  // optimizer reads them all.
  const ModelParams& pp = plan.params;
  const std::int64_t g_head = pp.lm_head * e, g_lnf = pp.final_ln * e, g_block = pp.per_block * e;

  // The schedule's local maxima. Forward allocations only grow (recompute on: a block's
  // temporaries are freed after it), so the forward's maxima are its end and, with recompute,
  // its last block. In the backward the logits are freed before dlogits exists; dx (the residual
  // stream's gradient) lives through every block; a block's backward holds at most
  // d_act [tokens, mlp] + d_ln2, or d_attn + d_qkv (then d_qkv + d_ln1, as large), beside dx
  // and its gradients. Block l's backward has blocks 0..l's activations still live (recompute
  // on: the checkpoints x_0..x_l+1 and block l's recomputed activations, less x_next, which is
  // the checkpoint already counted) and the gradients of blocks l..L-1: linear in l, so the
  // largest is the last block's or the first's. The embedding's backward holds every gradient.
  const std::int64_t P0 = plan.persistent_bytes;
  const std::int64_t block_transient = xh + std::max(xf, xq);
  auto& ph = plan.phases;
  if (m.recompute) {
    ph.push_back({"forward, last block (recomputable temporaries live)",
                  P0 + x0 + (L - 1) * xh + block_full});
  }
  const std::int64_t acts = x0 + saved_blocks + final_ln;
  ph.push_back({"forward end (logits live)", P0 + acts + xv});
  ph.push_back({"LM head backward (dlogits, its gradient, d_lnf)", P0 + acts + xv + g_head + xh});
  ph.push_back({"final LayerNorm backward (d_lnf, dx)", P0 + acts + g_head + g_lnf + 2 * xh});
  auto block_backward = [&](std::int64_t l) {
    const std::int64_t block_acts =
        m.recompute ? (l + 1) * xh + (block_full - xh) : (l + 1) * block_full;
    return P0 + x0 + block_acts + g_head + g_lnf + (L - l) * g_block + xh + block_transient;
  };
  ph.push_back({"last block backward (dx + largest transient)", block_backward(L - 1)});
  if (L > 1) {
    ph.push_back({"first block backward (every block's gradients)", block_backward(0)});
  }
  ph.push_back({"embedding backward (every gradient)", P0 + x0 + xh + plan.grad_bytes});
  for (const PlanPhase& p : ph) {
    if (p.bytes > plan.peak_bytes) {
      plan.peak_bytes = p.bytes;
      plan.peak_phase = p.name;
    }
  }

  plan.dense_flops = 6.0 * static_cast<double>(P) * static_cast<double>(m.tokens());
  plan.attention_flops = case_flops(ac) * static_cast<double>(L);
  plan.flops = plan.dense_flops + plan.attention_flops;
  return plan;
}

bool model_sizes_fit_int64(const ModelCase& m, std::string* why) {
  // Each product below, times 64 for the sums and the optimizer's two state copies, must
  // fit; the attention's own sizes are the shape algebra's guard.
  struct Term {
    const char* what;
    std::initializer_list<std::int64_t> factors;
  };
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::int64_t f =
      m.mlp_ratio > max / std::max<std::int64_t>(m.hidden, 1) ? -1 : m.mlp_ratio * m.hidden;
  const Term terms[] = {
      {"embedding and LM head (vocab*hidden)", {m.vocab, m.hidden}},
      {"MLP weights (hidden*mlp_ratio*hidden)", {m.hidden, f}},
      {"fused QKV weights (hidden*3*hidden)", {m.hidden, m.hidden, 3}},
      {"logits (B*T*vocab)", {m.B, m.T, m.vocab}},
      {"MLP activations (B*T*mlp_ratio*hidden)", {m.B, m.T, f}},
      {"all layers' activations (layers*B*T*mlp_ratio*hidden)", {m.layers, m.B, m.T, f}},
      {"all layers' weights (layers*hidden*mlp_ratio*hidden)", {m.layers, m.hidden, f}},
  };
  for (const Term& t : terms) {
    std::int64_t v = 64;
    bool fits = true;
    for (const std::int64_t x : t.factors)
      fits = fits && x >= 0 && !__builtin_mul_overflow(v, x, &v);
    if (!fits) {
      if (why) *why = fmt::format("{} overflows 64-bit byte counts", t.what);
      return false;
    }
  }
  return sizes_fit_int64(m.attention_case(), why);
}

const char* model_flops_convention() {
  return "model step: 6 * params * tokens (every parameter, embedding included; 2 for the "
         "forward, 4 for the backward) + per layer 3.5x the causal attention forward "
         "(4*B*H*T*T*D/2; flash-attention's fwd_bwd convention); recompute's extra forward is "
         "not counted (model FLOPs)";
}

const char* model_memory_convention() {
  return "model step: tracked peak of one step after a warm-up step, persistent memory included: "
         "weights in the dtype, AdamW m and v in the dtype too (PyTorch's: no master "
         "weights, no float32 state), gradients in the dtype allocated per parameter group when "
         "the backward first writes them and dropped when the next step starts (PyTorch's "
         "zero_grad(set_to_none=True)), "
         "int32 tokens, every block's saved activations, the attention backends' own buffers, on "
         "the cuda target the step's cuBLASLt workspace, reduction partials and token index; "
         "cpu-flash's per-thread tile scratch is reported apart (attention_scratch_bytes)";
}

}  // namespace fa2b
