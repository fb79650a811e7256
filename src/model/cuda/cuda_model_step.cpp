// SPDX-License-Identifier: Apache-2.0
#include "model/cuda/cuda_model_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "backends/shape_params.h"
#include "common/numeric.h"
#include "core/model_plan.h"
#include "model/attention_instances.h"
#include "model/cuda/gemm.h"
#include "model/cuda/model_kernels.h"
#include "model/token_index.h"
#include "runtime/cuda/cuda_check.h"

namespace fa2b::model::cuda {
namespace {

static_assert(kLossBlocks == kModelLossPartials, "the plan sizes the loss partials");

TargetInfo current_device() {
  TargetInfo t;
  int device = 0;
  FA2B_CUDA_CHECK(cudaGetDevice(&device));
  FA2B_CUDA_CHECK(cudaDeviceGetAttribute(&t.cc_major, cudaDevAttrComputeCapabilityMajor, device));
  FA2B_CUDA_CHECK(cudaDeviceGetAttribute(&t.cc_minor, cudaDevAttrComputeCapabilityMinor, device));
  int smem_optin = 0;  // fa2 picks its tiles within it
  FA2B_CUDA_CHECK(
      cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  t.smem_per_block_optin = smem_optin;
  std::size_t free_bytes = 0, total = 0;
  FA2B_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  t.cuda = true;
  t.memory_bytes = static_cast<std::int64_t>(total);
  return t;
}

// Throws UnsupportedCase for what the CUDA step cannot run; returns the attention backend.
std::unique_ptr<Backend> check_supported(const ModelCase& m) {
  if (m.dtype == DType::fp32) {
    throw UnsupportedCase(
        "the CUDA model step runs in fp16 or bf16 (our attention kernels' dtypes); fp32 runs "
        "on the CPU target");
  }
  if (m.hidden % m.heads != 0) {
    throw UnsupportedCase(
        fmt::format("hidden = {} is not a multiple of heads = {}", m.hidden, m.heads));
  }
  if (m.hidden % 8 != 0 || m.head_dim() % 8 != 0) {
    throw UnsupportedCase(fmt::format(
        "the CUDA model step needs hidden and the head dim D to be multiples of 8 (16-byte "
        "vectors); hidden = {}, D = {}",
        m.hidden, m.head_dim()));
  }
  if (m.tokens() > 2147483647 / 4) {
    throw UnsupportedCase("B*T too large for the step's 32-bit token index");
  }
  std::unique_ptr<Backend> b = make_backend(m.backend);
  if (!b)
    throw UnsupportedCase("attention backend " + m.backend + " is not built into this fa2bench");
  if (!b->on_device()) {
    throw UnsupportedCase("attention backend " + m.backend +
                          " runs on the host; the CUDA model step takes a CUDA backend (fa2, "
                          "naive, standard, cudnn)");
  }
  const Support sup = b->supports(m.attention_case(), current_device());
  if (!sup.ok) throw UnsupportedCase("attention " + m.backend + ": " + sup.reason);
  return b;
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(e, what, __FILE__, __LINE__);
}

}  // namespace

// What one block's forward keeps for its backward (recompute on: allocated again in the
// backward), in the host step's order. x_next is held apart in the residual stream.
struct CudaTransformerStep::BlockActs {
  TrackedBuffer ln1_stats, ln1_out, qkv, lse, attn_out, x_mid, ln2_stats, ln2_out, mlp_pre, mlp_act;
  explicit BlockActs(CudaTransformerStep& s) {
    const ActivationShapes a = activation_shapes(s.m_);
    MemoryTracker& t = s.tracker_;
    ln1_stats = TrackedBuffer(t, static_cast<std::size_t>(a.ln_stats_bytes), "ln1 stats");
    ln1_out = s.rows(a.row_h, "ln1 out");
    qkv = s.rows(a.row_qkv, "qkv");
    lse = TrackedBuffer(t, static_cast<std::size_t>(a.lse_bytes), "attention LSE");
    attn_out = s.rows(a.row_h, "attention out");
    x_mid = s.rows(a.row_h, "residual after attention");
    ln2_stats = TrackedBuffer(t, static_cast<std::size_t>(a.ln_stats_bytes), "ln2 stats");
    ln2_out = s.rows(a.row_h, "ln2 out");
    mlp_pre = s.rows(a.row_mlp, "MLP pre-activation");
    mlp_act = s.rows(a.row_mlp, "MLP activation");
  }
};

TrackedBuffer CudaTransformerStep::rows(std::int64_t elements, const char* what) {
  return TrackedBuffer(tracker_, static_cast<std::size_t>(elements * esize_), what);
}

const void* CudaTransformerStep::w(std::int64_t offset) const {
  return params_.as<char>() + offset * esize_;
}

void* CudaTransformerStep::g(std::int64_t offset) const {
  const std::size_t i = param_group_of(groups_, offset);
  return grads_[i].as<char>() + (offset - groups_[i].offset) * esize_;
}

void CudaTransformerStep::allocate_grads(std::size_t group) {
  grads_[group] = rows(groups_[group].count, "gradients");
  if (poison_grads_) {
    check(cudaMemsetAsync(grads_[group].get(), 0xFF, grads_[group].bytes(), stream_),
          "cudaMemsetAsync");
  }
}

void CudaTransformerStep::drop_grads() {
  for (TrackedBuffer& b : grads_) b.reset();
}

CudaTransformerStep::CudaTransformerStep(const ModelCase& m, MemoryTracker& tracker,
                                         cudaStream_t stream, std::uint64_t seed, float init_std)
    : m_(m),
      tracker_(tracker),
      stream_(stream),
      kdtype_(m.dtype == DType::bf16 ? KernelDType::bf16 : KernelDType::fp16),
      esize_(dtype_bytes(m.dtype)),
      layout_(param_layout(m)) {
  std::unique_ptr<Backend> probe = check_supported(m);
  const std::int64_t P = layout_.total, n = m.tokens();
  const DeviceStepBytes dev = device_step_bytes(m);
  reduce_chunks_ = dev.reduce_chunks;

  // Persistent memory, in the plan's terms: weights, gradients, AdamW m and v (the dtype),
  // tokens, the step's own buffers, then the attention backends.
  params_ = rows(P, "weights");
  groups_ = param_groups(layout_);
  grads_.resize(groups_.size());
  if (m.optimizer == Optimizer::adamw) {
    adam_m_ = rows(P, "AdamW m");
    adam_v_ = rows(P, "AdamW v");
    check(cudaMemsetAsync(adam_m_.get(), 0, adam_m_.bytes(), stream_), "cudaMemsetAsync");
    check(cudaMemsetAsync(adam_v_.get(), 0, adam_v_.bytes(), stream_), "cudaMemsetAsync");
  }
  tokens_ = TrackedBuffer(tracker, static_cast<std::size_t>(n) * 4, "tokens");
  token_index_ =
      TrackedBuffer(tracker, static_cast<std::size_t>(dev.token_index), "embedding token index");
  gemm_workspace_ =
      TrackedBuffer(tracker, static_cast<std::size_t>(dev.gemm_workspace), "cuBLASLt workspace");
  partials_ = TrackedBuffer(tracker, static_cast<std::size_t>(dev.reduce_partials),
                            "reduction partials and loss");

  // The weights are drawn on the device (a multi-GiB model would take minutes on one host
  // thread); the tokens are the host step's.
  check(cudaMemsetAsync(params_.get(), 0, params_.bytes(), stream_), "cudaMemsetAsync");
  for (const ParamTensor& t : layout_.tensors) {
    if (is_layer_norm_gain(t))
      check(fill(params_.as<char>() + t.offset * esize_, t.count(), 1.0f, kdtype_, stream_),
            "fill");
    if (t.rows > 1) {
      check(init_normal(params_.as<char>() + t.offset * esize_, t.count(), seed,
                        static_cast<std::uint64_t>(t.offset), init_std, kdtype_, stream_),
            "init_normal");
    }
  }
  tokens_host_.resize(static_cast<std::size_t>(n));
  initial_tokens(m, seed, tokens_host_.data());
  check(cudaMemcpyAsync(tokens_.get(), tokens_host_.data(), tokens_.bytes(), cudaMemcpyHostToDevice,
                        stream_),
        "cudaMemcpyAsync");
  const TokenIndex idx = build_token_index(tokens_host_.data(), n, m.vocab);
  segments_ = idx.segments();
  auto* ti = token_index_.as<std::int32_t>();
  check(
      cudaMemcpyAsync(ti, idx.order.data(), idx.order.size() * 4, cudaMemcpyHostToDevice, stream_),
      "cudaMemcpyAsync");
  check(cudaMemcpyAsync(ti + n, idx.seg_start.data(), idx.seg_start.size() * 4,
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync");
  check(cudaMemcpyAsync(ti + 2 * n + 1, idx.seg_token.data(), idx.seg_token.size() * 4,
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");  // `idx` goes

  gemm_ = std::make_unique<LtGemm>(kdtype_);
  gemm_->set_stream(stream_, gemm_workspace_.get(), gemm_workspace_.bytes());
  for (cudaEvent_t& e : events_) check(cudaEventCreate(&e), "cudaEventCreate");

  // prepare() sees the strides run() will get (rows of the fused QKV projection).
  attention_scratch_bytes_ = prepare_attention_backends(
      std::move(probe), m, attention_params(nullptr), tracker, attention_);
}

CudaTransformerStep::~CudaTransformerStep() {
  (void)cudaStreamSynchronize(stream_);
  for (auto& b : attention_) b->release();
  for (cudaEvent_t e : events_)
    if (e != nullptr) (void)cudaEventDestroy(e);
}

void CudaTransformerStep::set_params(const float* host) {
  const std::int64_t P = layout_.total;
  std::vector<std::uint16_t> bits(static_cast<std::size_t>(P));
  for (std::int64_t i = 0; i < P; ++i)
    bits[static_cast<std::size_t>(i)] =
        kdtype_ == KernelDType::bf16 ? float_to_bf16(host[i]) : float_to_fp16(host[i]);
  check(
      cudaMemcpyAsync(params_.get(), bits.data(), bits.size() * 2, cudaMemcpyHostToDevice, stream_),
      "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

namespace {
std::vector<float> widen(const TrackedBuffer& b, std::int64_t count, KernelDType dtype,
                         cudaStream_t stream) {
  std::vector<std::uint16_t> bits(static_cast<std::size_t>(count));
  check(cudaMemcpyAsync(bits.data(), b.get(), bits.size() * 2, cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i)
    out[i] = dtype == KernelDType::bf16 ? bf16_to_float(bits[i]) : fp16_to_float(bits[i]);
  return out;
}
}  // namespace

std::vector<float> CudaTransformerStep::params_to_host() const {
  return widen(params_, layout_.total, kdtype_, stream_);
}

std::vector<float> CudaTransformerStep::grads_to_host() const {
  std::vector<float> out;
  if (grads_.empty() || grads_.front().get() == nullptr) return out;
  out.reserve(static_cast<std::size_t>(layout_.total));
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const std::vector<float> part = widen(grads_[i], groups_[i].count, kdtype_, stream_);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

AttnParams CudaTransformerStep::attention_params(const BlockActs* a) const {
  AttnParams p = shape_params(m_.attention_case());
  // Q, K and V are column ranges of the fused projection's rows [tokens, qkv_width] (bshd with
  // a row stride of qkv_width); O is [tokens, hidden].
  const std::int64_t width = m_.qkv_width(), h = m_.hidden, kv = m_.H_kv * m_.head_dim();
  if (a != nullptr) {
    const char* qkv = a->qkv.as<char>();
    p.q = qkv;
    p.k = qkv + h * esize_;
    p.v = qkv + (h + kv) * esize_;
    p.o = a->attn_out.get();
    p.lse = a->lse.as<float>();
  }
  p.q_batch_stride = p.k_batch_stride = p.v_batch_stride = m_.T * width;
  p.q_row_stride = p.k_row_stride = p.v_row_stride = width;
  p.q_head_stride = p.k_head_stride = p.v_head_stride = m_.head_dim();
  p.o_batch_stride = m_.T * h;
  p.o_row_stride = h;
  p.o_head_stride = m_.head_dim();
  return p;
}

void CudaTransformerStep::forward_block(std::int64_t layer, BlockActs& a, const void* x_in,
                                        void* x_out) {
  const BlockParams& b = layout_.blocks[static_cast<std::size_t>(layer)];
  const std::int64_t n = m_.tokens(), h = m_.hidden, f = m_.mlp_hidden();
  check(layer_norm_forward(x_in, n, h, w(b.ln1_g), w(b.ln1_b), a.ln1_out.get(),
                           a.ln1_stats.as<float>(), kdtype_, stream_),
        "layer_norm_forward");
  gemm_->forward(a.ln1_out.get(), w(b.w_qkv), w(b.b_qkv), nullptr, a.qkv.get(), n, h,
                 m_.qkv_width());
  attention(layer).run(attention_params(&a), stream_);
  // x_mid = x_in + attn W_o + b_o: the residual as the GEMM's C.
  gemm_->forward(a.attn_out.get(), w(b.w_o), w(b.b_o), x_in, a.x_mid.get(), n, h, h);
  check(layer_norm_forward(a.x_mid.get(), n, h, w(b.ln2_g), w(b.ln2_b), a.ln2_out.get(),
                           a.ln2_stats.as<float>(), kdtype_, stream_),
        "layer_norm_forward");
  gemm_->forward(a.ln2_out.get(), w(b.w_up), w(b.b_up), nullptr, a.mlp_pre.get(), n, h, f);
  check(gelu_forward(a.mlp_pre.get(), n * f, a.mlp_act.get(), kdtype_, stream_), "gelu_forward");
  if (x_out == nullptr) return;  // a recomputed forward needs no block output
  gemm_->forward(a.mlp_act.get(), w(b.w_down), w(b.b_down), a.x_mid.get(), x_out, n, f, h);
}

void CudaTransformerStep::backward_block(std::int64_t layer, BlockActs& a, const void* x_in,
                                         void* dx) {
  const BlockParams& b = layout_.blocks[static_cast<std::size_t>(layer)];
  const std::int64_t n = m_.tokens(), h = m_.hidden, f = m_.mlp_hidden(), W = m_.qkv_width();
  const ActivationShapes s = activation_shapes(m_);
  float* partials = partials_.as<float>();
  const int chunks = static_cast<int>(reduce_chunks_);
  {  // MLP: d_act and d_ln2 live together
    TrackedBuffer d_act = rows(s.row_mlp, "d MLP activation");
    gemm_->backward_data(dx, w(b.w_down), d_act.get(), n, f, h);
    gemm_->backward_weight(a.mlp_act.get(), dx, g(b.w_down), n, f, h);
    check(column_sums(dx, n, h, g(b.b_down), partials, chunks, kdtype_, stream_), "column_sums");
    check(gelu_backward_inplace(a.mlp_pre.get(), n * f, d_act.get(), kdtype_, stream_),
          "gelu_backward_inplace");
    TrackedBuffer d_ln2 = rows(s.row_h, "d ln2 out");
    gemm_->backward_data(d_act.get(), w(b.w_up), d_ln2.get(), n, h, f);
    gemm_->backward_weight(a.ln2_out.get(), d_act.get(), g(b.w_up), n, h, f);
    check(column_sums(d_act.get(), n, f, g(b.b_up), partials, chunks, kdtype_, stream_),
          "column_sums");
    d_act.reset();
    check(layer_norm_backward_dx_add(d_ln2.get(), a.x_mid.get(), a.ln2_stats.as<float>(), n, h,
                                     w(b.ln2_g), dx, kdtype_, stream_),
          "layer_norm_backward_dx_add");
    check(layer_norm_param_grads(d_ln2.get(), a.x_mid.get(), a.ln2_stats.as<float>(), n, h,
                                 g(b.ln2_g), g(b.ln2_b), partials, chunks, kdtype_, stream_),
          "layer_norm_param_grads");
  }
  {  // attention: d_attn with d_qkv, then d_qkv with d_ln1
    TrackedBuffer d_attn = rows(s.row_h, "d attention out");
    gemm_->backward_data(dx, w(b.w_o), d_attn.get(), n, h, h);
    gemm_->backward_weight(a.attn_out.get(), dx, g(b.w_o), n, h, h);
    check(column_sums(dx, n, h, g(b.b_o), partials, chunks, kdtype_, stream_), "column_sums");
    TrackedBuffer d_qkv = rows(s.row_qkv, "d qkv");
    AttnBwdParams bp;
    bp.fwd = attention_params(&a);
    const std::int64_t kv = m_.H_kv * m_.head_dim();
    bp.d_o = d_attn.get();
    bp.d_q = d_qkv.get();
    bp.d_k = d_qkv.as<char>() + h * esize_;
    bp.d_v = d_qkv.as<char>() + (h + kv) * esize_;
    attention(layer).run_backward(bp, stream_);
    d_attn.reset();
    TrackedBuffer d_ln1 = rows(s.row_h, "d ln1 out");
    gemm_->backward_data(d_qkv.get(), w(b.w_qkv), d_ln1.get(), n, h, W);
    gemm_->backward_weight(a.ln1_out.get(), d_qkv.get(), g(b.w_qkv), n, h, W);
    check(column_sums(d_qkv.get(), n, W, g(b.b_qkv), partials, chunks, kdtype_, stream_),
          "column_sums");
    d_qkv.reset();
    check(layer_norm_backward_dx_add(d_ln1.get(), x_in, a.ln1_stats.as<float>(), n, h, w(b.ln1_g),
                                     dx, kdtype_, stream_),
          "layer_norm_backward_dx_add");
    check(layer_norm_param_grads(d_ln1.get(), x_in, a.ln1_stats.as<float>(), n, h, g(b.ln1_g),
                                 g(b.ln1_b), partials, chunks, kdtype_, stream_),
          "layer_norm_param_grads");
  }
}

double CudaTransformerStep::forward_backward(StepTimes* times) {
  drop_grads();  // zero_grad(set_to_none=True)
  try {
    return step(times);
  } catch (...) {
    drop_grads();
    throw;
  }
}

double CudaTransformerStep::step(StepTimes* times) {
  const std::int64_t n = m_.tokens(), h = m_.hidden, L = m_.layers, V = m_.vocab;
  const ActivationShapes s = activation_shapes(m_);
  float* partials = partials_.as<float>();
  // The loss (float64) sits after the float32 partials, 16-byte aligned.
  auto* loss_dev = reinterpret_cast<double*>(partials_.as<char>() + partials_.bytes() - 16);
  check(cudaEventRecord(events_[0], stream_), "cudaEventRecord");

  // ---- forward ----
  std::vector<TrackedBuffer> x;  // the residual stream x_0..x_L
  x.reserve(static_cast<std::size_t>(L + 1));
  x.push_back(rows(s.row_h, "embedding out"));
  check(embedding_forward(tokens_.as<std::int32_t>(), n, w(layout_.embedding), h, x[0].get(),
                          kdtype_, stream_),
        "embedding_forward");
  std::vector<std::unique_ptr<BlockActs>> acts(static_cast<std::size_t>(L));
  for (std::int64_t l = 0; l < L; ++l) {
    auto a = std::make_unique<BlockActs>(*this);
    x.push_back(rows(s.row_h, "block out"));
    forward_block(l, *a, x[static_cast<std::size_t>(l)].get(),
                  x[static_cast<std::size_t>(l + 1)].get());
    if (!m_.recompute) acts[static_cast<std::size_t>(l)] = std::move(a);
  }
  TrackedBuffer lnf_stats(tracker_, static_cast<std::size_t>(s.ln_stats_bytes), "final LN stats");
  TrackedBuffer lnf_out = rows(s.row_h, "final LN out");
  const void* x_last = x.back().get();
  check(layer_norm_forward(x_last, n, h, w(layout_.lnf_g), w(layout_.lnf_b), lnf_out.get(),
                           lnf_stats.as<float>(), kdtype_, stream_),
        "layer_norm_forward");
  {
    TrackedBuffer logits = rows(s.row_vocab, "logits");
    gemm_->forward(lnf_out.get(), w(layout_.head), nullptr, nullptr, logits.get(), n, h, V);
    check(mean_all(logits.get(), n * V, partials, loss_dev, kdtype_, stream_), "mean_all");
  }  // the mean's backward does not read the logits
  check(cudaEventRecord(events_[1], stream_), "cudaEventRecord");

  // ---- backward ----
  // d logits is materialised as the plan's schedule has it, holding ones: the mean's constant
  // gradient 1/(B*T*vocab) is the float32 alpha of the two GEMMs that read it, so it is not
  // rounded to the dtype (nor lost to fp16's range).
  const float inv = static_cast<float>(1.0 / static_cast<double>(n * V));
  TrackedBuffer d_lnf;
  {
    TrackedBuffer d_logits = rows(s.row_vocab, "d logits");
    check(fill(d_logits.get(), n * V, 1.0f, kdtype_, stream_), "fill");
    allocate_grads(groups_.size() - 1);  // the LM head's
    d_lnf = rows(s.row_h, "d final LN out");
    gemm_->backward_data(d_logits.get(), w(layout_.head), d_lnf.get(), n, h, V, inv);
    gemm_->backward_weight(lnf_out.get(), d_logits.get(), g(layout_.head), n, h, V, inv);
  }
  TrackedBuffer dx = rows(s.row_h, "d residual");
  check(cudaMemsetAsync(dx.get(), 0, dx.bytes(), stream_), "cudaMemsetAsync");
  allocate_grads(groups_.size() - 2);  // the final LayerNorm's
  check(layer_norm_backward_dx_add(d_lnf.get(), x_last, lnf_stats.as<float>(), n, h,
                                   w(layout_.lnf_g), dx.get(), kdtype_, stream_),
        "layer_norm_backward_dx_add");
  check(layer_norm_param_grads(d_lnf.get(), x_last, lnf_stats.as<float>(), n, h, g(layout_.lnf_g),
                               g(layout_.lnf_b), partials, static_cast<int>(reduce_chunks_),
                               kdtype_, stream_),
        "layer_norm_param_grads");
  d_lnf.reset();
  lnf_out.reset();
  lnf_stats.reset();
  for (std::int64_t l = L - 1; l >= 0; --l) {
    const auto li = static_cast<std::size_t>(l);
    const void* x_in = x[li].get();
    allocate_grads(1 + li);  // the block's
    if (m_.recompute) {
      acts[li] = std::make_unique<BlockActs>(*this);
      forward_block(l, *acts[li], x_in, nullptr);
    }
    backward_block(l, *acts[li], x_in, dx.get());
    acts[li].reset();
    x[li + 1].reset();
  }
  allocate_grads(0);  // the embedding's
  TokenIndexView index;
  index.order = token_index_.as<std::int32_t>();
  index.seg_start = index.order + n;
  index.seg_token = index.order + 2 * n + 1;
  index.segments = segments_;
  check(embedding_backward(index, dx.get(), V, h, g(layout_.embedding), kdtype_, stream_),
        "embedding_backward");
  dx.reset();
  x[0].reset();
  check(cudaEventRecord(events_[2], stream_), "cudaEventRecord");

  double loss = 0;
  check(cudaMemcpyAsync(&loss, loss_dev, sizeof(loss), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  if (times) {
    float fwd_ms = 0, bwd_ms = 0;
    check(cudaEventElapsedTime(&fwd_ms, events_[0], events_[1]), "cudaEventElapsedTime");
    check(cudaEventElapsedTime(&bwd_ms, events_[1], events_[2]), "cudaEventElapsedTime");
    times->forward_s = fwd_ms / 1e3;
    times->backward_s = bwd_ms / 1e3;
  }
  return loss;
}

void CudaTransformerStep::optimizer_step(const AdamWSettings& s, StepTimes* times) {
  if (times) times->optimizer_s = 0;  // optimizer none: no phase to time
  if (m_.optimizer != Optimizer::adamw) return;
  ++adam_steps_;
  AdamWArgs a;
  a.lr = s.lr;
  a.beta1 = s.beta1;
  a.beta2 = s.beta2;
  a.eps = s.eps;
  a.weight_decay = s.weight_decay;
  a.bc1 = 1.0f - std::pow(s.beta1, static_cast<float>(adam_steps_));
  a.bc2 = 1.0f - std::pow(s.beta2, static_cast<float>(adam_steps_));
  if (grads_.front().get() == nullptr) throw std::logic_error("optimizer_step before a backward");
  check(cudaEventRecord(events_[2], stream_), "cudaEventRecord");
  for (std::size_t i = 0; i < groups_.size(); ++i) {  // one pass per gradient group
    const std::int64_t off = groups_[i].offset * esize_;
    check(adamw_update(params_.as<char>() + off, grads_[i].get(), adam_m_.as<char>() + off,
                       adam_v_.as<char>() + off, groups_[i].count, a, kdtype_, stream_),
          "adamw_update");
  }
  check(cudaEventRecord(events_[3], stream_), "cudaEventRecord");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  if (times) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, events_[2], events_[3]), "cudaEventElapsedTime");
    times->optimizer_s = ms / 1e3;
  }
}

}  // namespace fa2b::model::cuda
