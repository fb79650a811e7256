// SPDX-License-Identifier: Apache-2.0
// cpu-flash: the FlashAttention-2 forward algorithm on the CPU. Each work item is one
// (batch, head, tile of Br query rows); it streams K/V tiles of Bc keys with an online softmax
// (running max m, running sum l, unnormalised O accumulator, all float32), skips tiles wholly
// outside the mask (above the causal diagonal, before a sliding window), and writes O and LSE
// once at the end. Extra memory is per-thread
// tile scratch only, so it does not grow with T. Training modes: the forward saves nothing
// beyond O and LSE; the backward (cpu_flash_bwd.cpp) adds the float32 row sums D_i, O(T).
// A variable-length batch runs sequence by sequence, each as a dense attention of its own length
// (common/varlen.h's view); a padded batch's padding rows are written as zeros.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "backends/cpu_backends.h"
#include "backends/cpu_backward.h"
#include "backends/cpu_common.h"
#include "backends/cpu_varlen.h"
#include "common/varlen.h"
#include "core/seq_lengths.h"

namespace fa2b {
namespace {

constexpr int kBr = 64;  // query rows per tile
constexpr int kBc = 64;  // keys per tile
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Floats of one thread's scratch: Q tile, O accumulator, K tile, V tile (all float32 copies,
// converted once per tile), the S/P tile and the m, l vectors; rounded up to 64 bytes so
// threads never share a cache line. Q and K are D wide, V and the O accumulator Dv wide.
std::int64_t scratch_floats(int D, int Dv) {
  const std::int64_t n = 1LL * kBr * (D + Dv) + 1LL * kBc * (D + Dv) + kBr * kBc + 2 * kBr;
  return (n + 15) / 16 * 16;
}

}  // namespace

CpuFlashScratch cpu_flash_scratch(const Case& c, int threads) {
  // No more scratch than there are work items: small cases on many cores stay small.
  std::int64_t items = c.B * c.H * ((c.T_q + kBr - 1) / kBr);
  const int D = static_cast<int>(c.D), Dv = static_cast<int>(c.Dv());
  std::int64_t per_thread = scratch_floats(D, Dv);
  if (runs_backward(c.mode)) {  // the backward's key-tile pass has its own items, larger tiles
    items = std::max<std::int64_t>(items, c.B * c.H_kv * ((c.T_k + kBc - 1) / kBc));
    per_thread = std::max(per_thread, cpu::flash_backward_scratch_floats(D, Dv));
  }
  CpuFlashScratch out;
  out.threads = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, items)));
  out.per_thread_floats = per_thread;
  return out;
}

namespace {

class CpuFlashBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu-flash"; }
  bool on_device() const override { return false; }
  Support supports(const Case& c, const TargetInfo&) const override { return cpu::check_case(c); }

  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    release();
    const CpuFlashScratch plan = cpu_flash_scratch(c, cpu::thread_count());
    threads_ = plan.threads;
    D_ = p.D;
    Dv_ = attn_dv(p);
    per_thread_ = plan.per_thread_floats;
    const auto bytes = static_cast<std::size_t>(plan.bytes());
    const bool backward = runs_backward(c.mode);
    TrackedBuffer scratch(tracker, bytes, "cpu-flash tile scratch");
    if (backward) {
      // One per query row the tensors hold (a packed batch's tokens): row_sums_bytes.
      const auto rows = static_cast<std::size_t>(query_rows(c) * c.H);
      di_ = TrackedBuffer(tracker, rows * sizeof(float), "cpu-flash backward row sums D_i");
    }
    varlen_.prepare(c, tracker);
    scratch_ = std::move(scratch);
  }

  void run(const AttnParams& batch, void*) override {
    // The scratch was carved for prepare()'s head dims.
    if (scratch_.get() == nullptr || batch.D != D_ || attn_dv(batch) != Dv_) {
      throw std::logic_error("cpu-flash: run() without a matching prepare()");
    }
    const AttnParams p = varlen_.apply(batch);
    if (!attn_varlen(p)) {
      run_dense(p, p.lse, p.T_q);
      return;
    }
    for (int b = 0; b < p.B; ++b) {
      if (p.seqused != nullptr) cpu::write_padding_rows(p, b);
      const SequenceView s = sequence_view(p, b);
      if (s.p.T_q > 0) run_dense(s.p, s.lse, s.lse_head_stride);
    }
  }

  void run_backward(const AttnBwdParams& p, void*) override {
    if (scratch_.get() == nullptr || di_.get() == nullptr || p.fwd.D != D_ ||
        attn_dv(p.fwd) != Dv_) {
      throw std::logic_error("cpu-flash: run_backward() without a training-mode prepare()");
    }
    // A variable-length batch sequence by sequence, each a dense backward of its own length.
    cpu::backward_by_sequence(
        varlen_.apply(p), di_.as<float>(),
        [&](int, const AttnBwdParams& view, const float* lse, std::int64_t lse_stride, float* di) {
          cpu::flash_backward(view, lse, lse_stride, di, scratch_.as<float>(), per_thread_,
                              threads_);
        });
  }

  void release() override {
    scratch_.reset();
    di_.reset();
    varlen_.reset();
  }

 private:
  // Every (batch, head, query tile) of a dense batch; row i of (b, h) writes its LSE to
  // lse[(b * H + h) * lse_head_stride + i] (a view's LSE is laid out by its batch).
  void run_dense(const AttnParams& p, float* lse, std::int64_t lse_head_stride) {
    const std::int64_t q_tiles = (p.T_q + kBr - 1) / kBr;
    const std::int64_t heads = static_cast<std::int64_t>(p.B) * p.H;
    // Tile-major order with the last query tile first: under causal masking later tiles see
    // more keys, so the most expensive items start first and the dynamic schedule balances.
    cpu::parallel_for(threads_, q_tiles * heads, [&](int t, std::int64_t item) {
      const std::int64_t tile = q_tiles - 1 - item / heads;
      const std::int64_t bh = item % heads;
      run_tile(p, static_cast<int>(bh / p.H), static_cast<int>(bh % p.H), tile * kBr,
               lse == nullptr ? nullptr : lse + bh * lse_head_stride,
               scratch_.as<float>() + t * per_thread_);
    });
  }
  // `lse`: the LSE of (b, h)'s rows, row i at lse[i]; null when not written.
  static void run_tile(const AttnParams& p, int b, int h, std::int64_t i0, float* lse,
                       float* scratch);

  int threads_ = 1;
  int D_ = 0, Dv_ = 0;
  std::int64_t per_thread_ = 0;  // floats of one thread's scratch
  TrackedBuffer scratch_, di_;
  cpu::VarlenArrays varlen_;
};

void CpuFlashBackend::run_tile(const AttnParams& p, int b, int h, std::int64_t i0, float* lse_row,
                               float* scratch) {
  const int D = p.D;
  const int Dv = attn_dv(p);  // V and O; Q and K are D wide
  const int rows = static_cast<int>(std::min<std::int64_t>(kBr, p.T_q - i0));
  const int hk = cpu::kv_head(p, h);
  float* q = scratch;          // [rows][D]
  float* acc = q + kBr * D;    // [rows][Dv]
  float* kt = acc + kBr * Dv;  // [keys][D]
  float* vt = kt + kBc * D;    // [keys][Dv]
  float* s = vt + kBc * Dv;    // [rows][kBc]
  float* m = s + kBr * kBc;    // [rows]
  float* l = m + kBr;          // [rows]

  for (int r = 0; r < rows; ++r) {
    cpu::load_row(p.q, cpu::q_offset(p, b, h, i0 + r), D, p.dtype, q + r * D);
    m[r] = kNegInf;
    l[r] = 0.0f;
  }
  std::fill(acc, acc + rows * Dv, 0.0f);

  // Keys from the first row's first visible one to the last row's last one; key tiles outside
  // are skipped entirely (a small window makes a row tile's cost independent of T_k).
  const std::int64_t kv_begin = first_visible_key(p, i0) / kBc * kBc;
  const std::int64_t kv_end = last_visible_key(p, i0 + rows - 1) + 1;
  for (std::int64_t j0 = kv_begin; j0 < kv_end; j0 += kBc) {
    const int keys = static_cast<int>(std::min<std::int64_t>(kBc, p.T_k - j0));
    for (int c = 0; c < keys; ++c) {
      cpu::load_row(p.k, cpu::k_offset(p, b, hk, j0 + c), D, p.dtype, kt + c * D);
      cpu::load_row(p.v, cpu::v_offset(p, b, hk, j0 + c), Dv, p.dtype, vt + c * Dv);
    }
    cpu::scores_tile(q, D, rows, kt, D, keys, D, p.scale, s, kBc);
    // Only tiles crossing a bound of the mask need masking: the first row's last visible key
    // is before the tile's last key, or the last row's first visible key after its first.
    const bool mask =
        last_visible_key(p, i0) < j0 + keys - 1 || first_visible_key(p, i0 + rows - 1) > j0;
    for (int r = 0; r < rows; ++r) {
      float* sr = s + r * kBc;
      if (mask) {
        const std::int64_t first = first_visible_key(p, i0 + r);
        const std::int64_t last = last_visible_key(p, i0 + r);
        for (int c = 0; c < keys; ++c) {
          if (j0 + c > last || j0 + c < first) sr[c] = kNegInf;
        }
      }
      float m_new = m[r];
      for (int c = 0; c < keys; ++c) m_new = std::max(m_new, sr[c]);
      // While a row has seen no visible key its max is -inf; exponentiate against 0 instead
      // (as the GPU kernel does) so masked scores give 0 and NaN scores still propagate.
      const float m_use = m_new == kNegInf ? 0.0f : m_new;
      const float alpha = std::exp(m[r] - m_use);  // 0 on the first visible tile
      float sum = 0.0f;
      for (int c = 0; c < keys; ++c) {
        const float e = std::exp(sr[c] - m_use);
        sum += e;                           // the row sum uses float32 P, as the GPU kernel's does
        sr[c] = cpu::round_to(e, p.dtype);  // P enters the PV product in the input dtype
      }
      l[r] = l[r] * alpha + sum;
      m[r] = m_new;
      if (alpha != 1.0f) {
        float* ar = acc + r * Dv;
        for (int d = 0; d < Dv; ++d) ar[d] *= alpha;
      }
    }
    cpu::accumulate_pv(s, kBc, rows, vt, Dv, keys, Dv, acc, Dv);
  }

  for (int r = 0; r < rows; ++r) {
    float* ar = acc + r * Dv;
    float lse = kNegInf;
    if (l[r] != 0.0f) {  // NaN inputs make l NaN, and O NaN with it
      const float inv = 1.0f / l[r];
      for (int d = 0; d < Dv; ++d) ar[d] *= inv;
      lse = m[r] + std::log(l[r]);
    } else {  // a row that sees no key: zeros (acc is still 0), LSE -inf
      std::fill(ar, ar + Dv, 0.0f);
    }
    cpu::store_row(p.o, cpu::o_offset(p, b, h, i0 + r), Dv, p.dtype, ar);
    if (lse_row != nullptr) lse_row[i0 + r] = lse;
  }
}

}  // namespace

std::unique_ptr<Backend> make_cpu_flash_backend() {
  return std::make_unique<CpuFlashBackend>();
}

}  // namespace fa2b
