// SPDX-License-Identifier: Apache-2.0
#include "model/model_step.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "backends/shape_params.h"
#include "core/model_plan.h"
#include "core/shape_algebra.h"
#include "model/attention_instances.h"

namespace fa2b::model {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

TrackedBuffer floats(MemoryTracker& t, std::int64_t count, const char* what) {
  return TrackedBuffer(t, static_cast<std::size_t>(count) * sizeof(float), what);
}

}  // namespace

// What one block's forward keeps for its backward (recompute on: allocated again in the
// backward). x_next is not here: the residual stream x_0..x_L is held apart.
struct TransformerStep::BlockActs {
  TrackedBuffer ln1_stats, ln1_out, qkv, lse, attn_out, x_mid, ln2_stats, ln2_out, mlp_pre, mlp_act;
  BlockActs(MemoryTracker& t, const ModelCase& m) {
    const ActivationShapes s = activation_shapes(m);
    ln1_stats = TrackedBuffer(t, static_cast<std::size_t>(s.ln_stats_bytes), "ln1 stats");
    ln1_out = floats(t, s.row_h, "ln1 out");
    qkv = floats(t, s.row_qkv, "qkv");
    lse = TrackedBuffer(t, static_cast<std::size_t>(s.lse_bytes), "attention LSE");
    attn_out = floats(t, s.row_h, "attention out");
    x_mid = floats(t, s.row_h, "residual after attention");
    ln2_stats = TrackedBuffer(t, static_cast<std::size_t>(s.ln_stats_bytes), "ln2 stats");
    ln2_out = floats(t, s.row_h, "ln2 out");
    mlp_pre = floats(t, s.row_mlp, "MLP pre-activation");
    mlp_act = floats(t, s.row_mlp, "MLP activation");
  }
};

TransformerStep::TransformerStep(const ModelCase& m, MemoryTracker& tracker, std::uint64_t seed,
                                 float init_std)
    : m_(m), tracker_(tracker), layout_(param_layout(m)) {
  if (m.dtype != DType::fp32) {
    throw UnsupportedCase("the CPU model step runs in float32 only (dtype fp32); " +
                          std::string(to_string(m.dtype)) + " needs the GPU step");
  }
  const Case ac = m.attention_case();
  std::unique_ptr<Backend> probe = make_backend(m.backend);
  if (!probe || probe->on_device()) {
    throw UnsupportedCase("attention backend " + m.backend +
                          " does not run on the host; the CPU model step takes cpu-naive or "
                          "cpu-flash");
  }
  const Support sup = probe->supports(ac, TargetInfo{});
  if (!sup.ok) throw UnsupportedCase(sup.reason);

  const std::int64_t P = layout_.total;
  params_ = floats(tracker, P, "weights");
  groups_ = param_groups(layout_);
  grads_.resize(groups_.size());
  if (m.optimizer == Optimizer::adamw) {
    adam_m_ = floats(tracker, P, "AdamW m");
    adam_v_ = floats(tracker, P, "AdamW v");
    std::fill(adam_m_.as<float>(), adam_m_.as<float>() + P, 0.0f);
    std::fill(adam_v_.as<float>(), adam_v_.as<float>() + P, 0.0f);
  }
  tokens_ = TrackedBuffer(tracker, static_cast<std::size_t>(m.tokens()) * 4, "tokens");

  initial_state(m, layout_, seed, init_std, params(), tokens_.as<std::int32_t>());

  attention_scratch_bytes_ =
      prepare_attention_backends(std::move(probe), m, shape_params(ac), tracker, attention_);
}

TransformerStep::~TransformerStep() {
  for (auto& b : attention_) b->release();
}

AttnParams TransformerStep::attention_params(std::int64_t, const BlockActs& a) const {
  AttnParams p = shape_params(m_.attention_case());
  // Q, K and V are column ranges of the fused projection's rows [tokens, qkv_width] (bshd with
  // a row stride of qkv_width); O is [tokens, hidden].
  const std::int64_t width = m_.qkv_width(), h = m_.hidden, kv = m_.H_kv * m_.head_dim();
  const float* qkv = a.qkv.as<float>();
  p.q = qkv;
  p.k = qkv + h;
  p.v = qkv + h + kv;
  p.o = a.attn_out.get();
  p.lse = a.lse.as<float>();
  p.q_batch_stride = p.k_batch_stride = p.v_batch_stride = m_.T * width;
  p.q_row_stride = p.k_row_stride = p.v_row_stride = width;
  p.q_head_stride = p.k_head_stride = p.v_head_stride = m_.head_dim();
  p.o_batch_stride = m_.T * h;
  p.o_row_stride = h;
  p.o_head_stride = m_.head_dim();
  return p;
}

void TransformerStep::forward_block(std::int64_t layer, BlockActs& a, const float* x_in,
                                    float* x_out) {
  const BlockParams& b = layout_.blocks[static_cast<std::size_t>(layer)];
  const float* w = params();
  const std::int64_t n = m_.tokens(), h = m_.hidden;
  layer_norm_forward(x_in, n, h, w + b.ln1_g, w + b.ln1_b, a.ln1_out.as<float>(),
                     a.ln1_stats.as<float>());
  linear_forward(a.ln1_out.as<float>(), n, h, w + b.w_qkv, w + b.b_qkv, m_.qkv_width(),
                 a.qkv.as<float>(), false);
  attention(layer).run(attention_params(layer, a), nullptr);
  float* x_mid = a.x_mid.as<float>();
  std::copy(x_in, x_in + n * h, x_mid);
  linear_forward(a.attn_out.as<float>(), n, h, w + b.w_o, w + b.b_o, h, x_mid, true);
  layer_norm_forward(x_mid, n, h, w + b.ln2_g, w + b.ln2_b, a.ln2_out.as<float>(),
                     a.ln2_stats.as<float>());
  linear_forward(a.ln2_out.as<float>(), n, h, w + b.w_up, w + b.b_up, m_.mlp_hidden(),
                 a.mlp_pre.as<float>(), false);
  gelu_forward(a.mlp_pre.as<float>(), n * m_.mlp_hidden(), a.mlp_act.as<float>());
  if (x_out == nullptr) return;  // a recomputed forward needs no block output
  std::copy(x_mid, x_mid + n * h, x_out);
  linear_forward(a.mlp_act.as<float>(), n, m_.mlp_hidden(), w + b.w_down, w + b.b_down, h, x_out,
                 true);
}

void TransformerStep::backward_block(std::int64_t layer, BlockActs& a, const float* x_in,
                                     float* dx) {
  const BlockParams& b = layout_.blocks[static_cast<std::size_t>(layer)];
  const float* w = params();
  const std::int64_t n = m_.tokens(), h = m_.hidden, f = m_.mlp_hidden();
  const ActivationShapes s = activation_shapes(m_);
  {  // MLP: d_act and d_ln2 live together
    TrackedBuffer d_act = floats(tracker_, s.row_mlp, "d MLP activation");
    linear_backward(a.mlp_act.as<float>(), dx, n, f, h, w + b.w_down, d_act.as<float>(),
                    g(b.w_down), g(b.b_down));
    gelu_backward_inplace(a.mlp_pre.as<float>(), n * f, d_act.as<float>());
    TrackedBuffer d_ln2 = floats(tracker_, s.row_h, "d ln2 out");
    linear_backward(a.ln2_out.as<float>(), d_act.as<float>(), n, h, f, w + b.w_up,
                    d_ln2.as<float>(), g(b.w_up), g(b.b_up));
    d_act.reset();
    layer_norm_backward_add(d_ln2.as<float>(), a.x_mid.as<float>(), a.ln2_stats.as<float>(), n, h,
                            w + b.ln2_g, dx, g(b.ln2_g), g(b.ln2_b));
  }
  {  // attention: d_attn with d_qkv, then d_qkv with d_ln1
    TrackedBuffer d_attn = floats(tracker_, s.row_h, "d attention out");
    linear_backward(a.attn_out.as<float>(), dx, n, h, h, w + b.w_o, d_attn.as<float>(), g(b.w_o),
                    g(b.b_o));
    TrackedBuffer d_qkv = floats(tracker_, s.row_qkv, "d qkv");
    AttnBwdParams bp;
    bp.fwd = attention_params(layer, a);
    const std::int64_t kv = m_.H_kv * m_.head_dim();
    bp.d_o = d_attn.get();
    bp.d_q = d_qkv.as<float>();
    bp.d_k = d_qkv.as<float>() + h;
    bp.d_v = d_qkv.as<float>() + h + kv;
    attention(layer).run_backward(bp, nullptr);
    d_attn.reset();
    TrackedBuffer d_ln1 = floats(tracker_, s.row_h, "d ln1 out");
    linear_backward(a.ln1_out.as<float>(), d_qkv.as<float>(), n, h, m_.qkv_width(), w + b.w_qkv,
                    d_ln1.as<float>(), g(b.w_qkv), g(b.b_qkv));
    d_qkv.reset();
    layer_norm_backward_add(d_ln1.as<float>(), x_in, a.ln1_stats.as<float>(), n, h, w + b.ln1_g, dx,
                            g(b.ln1_g), g(b.ln1_b));
  }
}

float* TransformerStep::g(std::int64_t offset) {
  const std::size_t i = param_group_of(groups_, offset);
  return grads_[i].as<float>() + (offset - groups_[i].offset);
}

void TransformerStep::allocate_grads(std::size_t group) {
  grads_[group] = floats(tracker_, groups_[group].count, "gradients");
}

void TransformerStep::drop_grads() {
  for (TrackedBuffer& b : grads_) b.reset();
}

std::vector<float> TransformerStep::grads() const {
  std::vector<float> out;
  if (grads_.empty() || grads_.front().get() == nullptr) return out;
  out.reserve(static_cast<std::size_t>(layout_.total));
  for (std::size_t i = 0; i < groups_.size(); ++i)
    out.insert(out.end(), grads_[i].as<float>(), grads_[i].as<float>() + groups_[i].count);
  return out;
}

double TransformerStep::forward_backward(StepTimes* times) {
  drop_grads();  // zero_grad(set_to_none=True)
  try {
    return step(times);
  } catch (...) {
    drop_grads();
    throw;
  }
}

double TransformerStep::step(StepTimes* times) {
  const std::int64_t n = m_.tokens(), h = m_.hidden, L = m_.layers, V = m_.vocab;
  const ActivationShapes s = activation_shapes(m_);
  const float* w = params();
  auto t0 = Clock::now();

  // ---- forward ----
  std::vector<TrackedBuffer> x;  // the residual stream x_0..x_L
  x.reserve(static_cast<std::size_t>(L + 1));
  x.push_back(floats(tracker_, s.row_h, "embedding out"));
  embedding_forward(tokens(), n, w + layout_.embedding, h, x[0].as<float>());
  std::vector<std::unique_ptr<BlockActs>> acts(static_cast<std::size_t>(L));
  for (std::int64_t l = 0; l < L; ++l) {
    auto a = std::make_unique<BlockActs>(tracker_, m_);
    x.push_back(floats(tracker_, s.row_h, "block out"));
    forward_block(l, *a, x[static_cast<std::size_t>(l)].as<float>(),
                  x[static_cast<std::size_t>(l + 1)].as<float>());
    if (!recompute()) acts[static_cast<std::size_t>(l)] = std::move(a);
  }
  TrackedBuffer lnf_stats(tracker_, static_cast<std::size_t>(s.ln_stats_bytes), "final LN stats");
  TrackedBuffer lnf_out = floats(tracker_, s.row_h, "final LN out");
  const float* x_last = x.back().as<float>();
  layer_norm_forward(x_last, n, h, w + layout_.lnf_g, w + layout_.lnf_b, lnf_out.as<float>(),
                     lnf_stats.as<float>());
  double loss = 0;
  {
    TrackedBuffer logits = floats(tracker_, s.row_vocab, "logits");
    linear_forward(lnf_out.as<float>(), n, h, w + layout_.head, nullptr, V, logits.as<float>(),
                   false);
    for (std::int64_t i = 0; i < n * V; ++i) loss += logits.as<float>()[i];
    loss /= static_cast<double>(n * V);
  }  // the mean's backward does not read the logits
  if (times) times->forward_s = seconds_since(t0);
  t0 = Clock::now();

  // ---- backward ----
  TrackedBuffer d_lnf;
  {
    TrackedBuffer d_logits = floats(tracker_, s.row_vocab, "d logits");
    std::fill(d_logits.as<float>(), d_logits.as<float>() + n * V,
              static_cast<float>(1.0 / static_cast<double>(n * V)));
    allocate_grads(groups_.size() - 1);  // the LM head's
    d_lnf = floats(tracker_, s.row_h, "d final LN out");
    linear_backward(lnf_out.as<float>(), d_logits.as<float>(), n, h, V, w + layout_.head,
                    d_lnf.as<float>(), g(layout_.head), nullptr);
  }
  TrackedBuffer dx = floats(tracker_, s.row_h, "d residual");
  std::fill(dx.as<float>(), dx.as<float>() + n * h, 0.0f);
  allocate_grads(groups_.size() - 2);  // the final LayerNorm's
  layer_norm_backward_add(d_lnf.as<float>(), x_last, lnf_stats.as<float>(), n, h, w + layout_.lnf_g,
                          dx.as<float>(), g(layout_.lnf_g), g(layout_.lnf_b));
  d_lnf.reset();
  lnf_out.reset();
  lnf_stats.reset();
  for (std::int64_t l = L - 1; l >= 0; --l) {
    const auto li = static_cast<std::size_t>(l);
    const float* x_in = x[li].as<float>();
    allocate_grads(1 + li);  // the block's
    if (recompute()) {
      acts[li] = std::make_unique<BlockActs>(tracker_, m_);
      forward_block(l, *acts[li], x_in, nullptr);
    }
    backward_block(l, *acts[li], x_in, dx.as<float>());
    acts[li].reset();
    x[li + 1].reset();
  }
  allocate_grads(0);  // the embedding's
  embedding_backward(tokens(), n, dx.as<float>(), V, h, g(layout_.embedding));
  dx.reset();
  x[0].reset();
  if (times) times->backward_s = seconds_since(t0);
  return loss;
}

void TransformerStep::optimizer_step(const AdamWSettings& s, StepTimes* times) {
  if (times) times->optimizer_s = 0;  // optimizer none: no phase to time
  if (m_.optimizer != Optimizer::adamw) return;
  if (grads_.front().get() == nullptr) throw std::logic_error("optimizer_step before a backward");
  const auto t0 = Clock::now();
  ++adam_steps_;
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const std::int64_t off = groups_[i].offset;
    adamw_update(params() + off, grads_[i].as<float>(), adam_m_.as<float>() + off,
                 adam_v_.as<float>() + off, groups_[i].count, s, adam_steps_);
  }
  if (times) times->optimizer_s = seconds_since(t0);
}

}  // namespace fa2b::model
