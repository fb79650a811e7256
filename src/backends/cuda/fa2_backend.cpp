// SPDX-License-Identifier: Apache-2.0
#include <cstdint>
#include <string>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/device_varlen.h"
#include "backends/cuda/head_dim_padding.h"
#include "common/attn_mask.h"
#include "common/head_dims.h"
#include "fa2/fa2_bwd.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_fwd_launch.h"
#include "fa2/fa2_padded_head_dims.h"
#include "fa2/fa2_split_kv.h"
#include "fa2/fa2_tile_choice.h"
#include "runtime/cuda/cuda_check.h"

namespace fa2b {
namespace {

class Fa2CudaBackend final : public Backend {
 public:
  std::string_view name() const override { return "fa2"; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    // The backward's rules include the forward's (the backward reads its O and LSE).
    Support s = our_kernel_support(c, t, name(),
                                   runs_backward(c.mode) ? fa2_bwd_supported : fa2_fwd_supported);
    if (!s.ok) return s;
    // A tile that does not fit the device's shared memory per block is never launched.
    const int D = static_cast<int>(c.D);
    const bool masked = attn_masked(shape_params(c)) || c.varlen();
    const std::int64_t limit = fa2_smem_limit_for(t.smem_per_block_optin);
    const std::string why =
        fa2_head_dim_supported(D)
            ? fa2_smem_unsupported_reason(D, masked, runs_backward(c.mode), limit)
            : fa2_padded_smem_unsupported_reason(D, masked, runs_backward(c.mode), limit);
    if (!why.empty()) return Support::no(why);
    // A paged cache runs in the decode kernels, on the small-grid tile alone (no fallback).
    if (c.paged() && limit > 0 &&
        choose_fwd_tile(D, masked, true, limit) != Fa2FwdTile::kSmallGrid) {
      return Support::no(
          "paged KV layout: fa2 reads pages in its decode kernels, whose tile at D=" +
          std::to_string(D) + " needs " +
          fa2_kib_text(fa2_fwd_tile_smem(D, masked, Fa2FwdTile::kSmallGrid)) +
          " of shared memory per block; this device allows " + fa2_kib_text(limit));
    }
    return s;
  }

  // The forward keeps O and LSE (outputs anyway) and, when its decode plan splits the key axis
  // (fa2_split_choice.h) or a paged cache runs the split kernel unsplit, the splits' float32
  // rows and log-sum-exps; the backward's fp32 dQ accumulator and row sums are its workspace.
  // All tracked like every buffer.
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    varlen_.prepare(c, tracker);
    // A variable-length batch runs the plain forward (the decode plan sees its arrays).
    split_ = fa2_fwd_decode_plan(varlen_.apply(p));
    paged_ = p.block_table != nullptr;
    const std::int64_t split_bytes = fa2_fwd_split_workspace_bytes(p, split_);
    if (split_bytes > 0) {
      split_workspace_ = TrackedBuffer(tracker, split_bytes, "fa2 split-KV partial O and LSE");
      split_.o_partial = static_cast<float*>(split_workspace_.get());
      split_.lse_partial =
          split_.o_partial + static_cast<std::int64_t>(split_.n_splits) * p.B * p.H * p.T_q * p.D;
    }
    if (runs_backward(c.mode)) {
      workspace_ =
          TrackedBuffer(tracker, fa2_bwd_workspace_bytes(p), "fa2 backward dQ accumulator");
    }
  }

  // The decode plan, so results say which path a case timed ("" for the plain forward).
  std::string info() const override {
    if (split_.n_splits <= 1 && !split_.pack_gqa && !paged_) return {};
    return "fa2 decode: " + std::to_string(split_.n_splits) + " split" +
           (split_.n_splits == 1 ? "" : "s") + (split_.pack_gqa ? ", GQA groups packed" : "") +
           (paged_ ? ", paged KV" : "");
  }

  void run(const AttnParams& p, void* stream) override {
    FA2B_CUDA_CHECK(fa2_fwd(varlen_.apply(p), split_, static_cast<cudaStream_t>(stream)));
  }

  void run_backward(const AttnBwdParams& p, void* stream) override {
    FA2B_CUDA_CHECK(fa2_bwd(p, workspace_.get(), static_cast<cudaStream_t>(stream)));
  }

  void release() override {
    workspace_.reset();
    split_workspace_.reset();
    varlen_.reset();
    split_ = Fa2SplitKv{};
    paged_ = false;
  }

 private:
  DeviceVarlenArrays varlen_;
  TrackedBuffer workspace_;
  TrackedBuffer split_workspace_;
  Fa2SplitKv split_;
  bool paged_ = false;
};

}  // namespace

// A head dim that is not a multiple of 8 runs padded to the next one (head_dim_padding.h).
std::unique_ptr<Backend> make_fa2_cuda_backend() {
  return with_head_dim_padding(std::make_unique<Fa2CudaBackend>());
}

}  // namespace fa2b
