// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/head_dim_padding.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "core/seq_lengths.h"
#include "core/shape_algebra.h"
#include "runtime/cuda/cuda_check.h"

namespace fa2b {
namespace {

// One tensor of D-element rows and its zero-padded copy of D_8-element rows.
struct PaddedTensor {
  TrackedBuffer buffer;
  std::int64_t rows = 0;
};

class HeadDimPaddingBackend final : public Backend {
 public:
  explicit HeadDimPaddingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

  std::string_view name() const override { return inner_->name(); }
  bool on_device() const override { return inner_->on_device(); }

  Support supports(const Case& c, const TargetInfo& t) const override {
    if (c.D % 8 == 0) return inner_->supports(c, t);
    const std::string padded = fmt::format("D={} runs padded to D={} (rows copied in and out)", c.D,
                                           head_dim_padded_to_8(c));
    if (c.paged()) {
      return Support::no(fmt::format(
          "paged KV layout at D={}: {} pads a head dim that is not a multiple of 8 by copying "
          "whole tensors, and reads no page pool that way",
          c.D, name()));
    }
    if (c.split_head_dims()) {
      return Support::no(
          fmt::format("D={} with D_v={}: {} pads equal head dims only", c.D, c.Dv(), name()));
    }
    Support s = inner_->supports(padded_case(c), t);
    if (!s.ok) s.reason = padded + ": " + s.reason;
    return s;
  }

  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    active_ = c.D % 8 != 0;
    if (!active_) return inner_->prepare(c, p, tracker);
    D_ = p.D;
    D8_ = head_dim_padded_to_8(c);
    elem_ = dtype_bytes(c.dtype);
    // Rows of D elements in each tensor: a packed batch's tokens, else B x T, times the heads.
    const std::int64_t q_rows = query_rows(c) * c.H;
    const std::int64_t k_rows = key_rows(c) * c.H_kv;
    auto make = [&](PaddedTensor& t, std::int64_t rows, const char* what) {
      t.rows = rows;
      t.buffer = TrackedBuffer(tracker, static_cast<std::size_t>(rows * D8_ * elem_),
                               fmt::format("{} ({} padded to D={})", what, D_, D8_));
      // The padding columns stay zero: copies write the first D columns only.
      FA2B_CUDA_CHECK(cudaMemset(t.buffer.get(), 0, static_cast<std::size_t>(rows * D8_ * elem_)));
    };
    make(q_, q_rows, "Q");
    make(k_, k_rows, "K");
    make(v_, k_rows, "V");
    make(o_, q_rows, "O");
    if (runs_backward(c.mode)) {
      make(d_o_, q_rows, "dO");
      make(d_q_, q_rows, "dQ");
      make(d_k_, k_rows, "dK");
      make(d_v_, k_rows, "dV");
    }
    inner_->prepare(padded_case(c), padded_params(p), tracker);
  }

  std::string info() const override {
    const std::string inner = inner_->info();
    if (!active_) return inner;
    const std::string pad = fmt::format("D={} padded to D={} (copies timed)", D_, D8_);
    return inner.empty() ? pad : inner + "; " + pad;
  }

  void run(const AttnParams& p, void* stream) override {
    if (!active_) return inner_->run(p, stream);
    const auto s = static_cast<cudaStream_t>(stream);
    copy_in(q_, p.q, s);
    copy_in(k_, p.k, s);
    copy_in(v_, p.v, s);
    inner_->run(padded_params(p), stream);
    copy_out(p.o, o_, s);
  }

  void run_backward(const AttnBwdParams& p, void* stream) override {
    if (!active_) return inner_->run_backward(p, stream);
    const auto s = static_cast<cudaStream_t>(stream);
    // Q, K, V and O's padded copies hold the last run()'s, which the backward reads.
    copy_in(d_o_, p.d_o, s);
    AttnBwdParams padded;
    padded.fwd = padded_params(p.fwd);
    padded.d_o = d_o_.buffer.get();
    padded.d_q = d_q_.buffer.get();
    padded.d_k = d_k_.buffer.get();
    padded.d_v = d_v_.buffer.get();
    inner_->run_backward(padded, stream);
    copy_out(p.d_q, d_q_, s);
    copy_out(p.d_k, d_k_, s);
    copy_out(p.d_v, d_v_, s);
  }

  void release() override {
    inner_->release();
    for (PaddedTensor* t : {&q_, &k_, &v_, &o_, &d_o_, &d_q_, &d_k_, &d_v_}) *t = PaddedTensor{};
    active_ = false;
  }

  bool rotates_inputs(std::string* why) const override { return inner_->rotates_inputs(why); }
  int variant_count(std::int64_t D) const override { return inner_->variant_count(D); }

 private:
  static Case padded_case(const Case& c) {
    Case padded = c;
    padded.D = head_dim_padded_to_8(c);
    return padded;
  }

  // A stride of a tensor of D-element rows (every one is a whole number of rows: the runner's
  // tensors are dense, in either layout, packed or not) in the padded copy's elements.
  std::int64_t padded_stride(std::int64_t stride) const {
    if (stride % D_ != 0) {
      throw std::logic_error(fmt::format(
          "head-dim padding: stride {} is not a whole number of D={} rows", stride, D_));
    }
    return stride / D_ * D8_;
  }

  AttnParams padded_params(const AttnParams& p) const {
    AttnParams padded = p;  // the scale stays the real D's
    padded.D = static_cast<int>(D8_);
    padded.q = q_.buffer.get();
    padded.k = k_.buffer.get();
    padded.v = v_.buffer.get();
    padded.o = o_.buffer.get();
    for (std::int64_t* s : {&padded.q_batch_stride, &padded.q_head_stride, &padded.q_row_stride,
                            &padded.k_batch_stride, &padded.k_head_stride, &padded.k_row_stride,
                            &padded.v_batch_stride, &padded.v_head_stride, &padded.v_row_stride,
                            &padded.o_batch_stride, &padded.o_head_stride, &padded.o_row_stride}) {
      *s = padded_stride(*s);
    }
    return padded;
  }

  void copy_in(PaddedTensor& dst, const void* src, cudaStream_t s) const {
    FA2B_CUDA_CHECK(cudaMemcpy2DAsync(
        dst.buffer.get(), static_cast<std::size_t>(D8_ * elem_), src,
        static_cast<std::size_t>(D_ * elem_), static_cast<std::size_t>(D_ * elem_),
        static_cast<std::size_t>(dst.rows), cudaMemcpyDeviceToDevice, s));
  }
  void copy_out(void* dst, const PaddedTensor& src, cudaStream_t s) const {
    FA2B_CUDA_CHECK(cudaMemcpy2DAsync(
        dst, static_cast<std::size_t>(D_ * elem_), src.buffer.get(),
        static_cast<std::size_t>(D8_ * elem_), static_cast<std::size_t>(D_ * elem_),
        static_cast<std::size_t>(src.rows), cudaMemcpyDeviceToDevice, s));
  }

  std::unique_ptr<Backend> inner_;
  bool active_ = false;
  std::int64_t D_ = 0, D8_ = 0, elem_ = 2;
  PaddedTensor q_, k_, v_, o_, d_o_, d_q_, d_k_, d_v_;
};

}  // namespace

std::unique_ptr<Backend> with_head_dim_padding(std::unique_ptr<Backend> inner) {
  return std::make_unique<HeadDimPaddingBackend>(std::move(inner));
}

}  // namespace fa2b
