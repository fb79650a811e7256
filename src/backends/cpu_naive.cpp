// SPDX-License-Identifier: Apache-2.0
// cpu-naive: standard attention with the score matrix materialised in host memory, mirroring
// the GPU `naive` backend's three kernels so its memory grows as T^2 the same way:
//   1. S = scale * Q K^T for every (b, h), float32 [B, H, T_q, T_k] (full GEMM, no mask skip)
//   2. a masked row softmax of S into P (causal, sliding window: zeros outside the row's
//      visible keys), stored in the input dtype, plus the LSE
//   3. O = P V (full GEMM; masked entries of P are zero)
// S and P come from the tracker in prepare(); the per-thread tiles used to convert inputs to
// float32 are small and untracked, like a GPU kernel's shared memory.
// Training modes: P is what the forward saves; the backward (cpu_naive_bwd.cpp) reuses S's
// buffer for dP and dS and adds the float32 row sums D_i, also from the tracker.
// A variable-length batch runs the three phases sequence by sequence, each a dense attention of
// its own length (common/varlen.h's view) in its own part of S and P (sequence b's H x L_b x L_b
// matrices after the earlier sequences'; S and P are sized for the padded batch, which holds
// them all), so its backward finds every sequence's P; a padded batch's padding rows are
// written as zeros.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "backends/cpu_backends.h"
#include "backends/cpu_backward.h"
#include "backends/cpu_common.h"
#include "backends/cpu_varlen.h"
#include "common/varlen.h"
#include "core/seq_lengths.h"

namespace fa2b {
namespace {

constexpr int kRows = 64;  // query rows per work item
constexpr int kKeys = 64;  // keys per converted K / V tile
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

class CpuNaiveBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu-naive"; }
  bool on_device() const override { return false; }
  Support supports(const Case& c, const TargetInfo&) const override { return cpu::check_case(c); }

  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    release();
    const auto count = static_cast<std::size_t>(p.B) * static_cast<std::size_t>(p.H) *
                       static_cast<std::size_t>(p.T_q) * static_cast<std::size_t>(p.T_k);
    // Locals first: if P does not fit, S is released on the way out instead of leaking.
    TrackedBuffer s(tracker, count * sizeof(float), "cpu-naive scores S (float32)");
    TrackedBuffer pm(tracker, count * cpu::storage_bytes(p.dtype), "cpu-naive probabilities P");
    if (runs_backward(c.mode)) {
      // One per query row the tensors hold (a packed batch's tokens): row_sums_bytes.
      const auto rows = static_cast<std::size_t>(query_rows(c) * c.H);
      di_ = TrackedBuffer(tracker, rows * sizeof(float), "cpu-naive backward row sums D_i");
    }
    varlen_.prepare(c, tracker);
    s_ = std::move(s);
    p_ = std::move(pm);
    count_ = count;
  }

  void run(const AttnParams& p, void*) override;

  void run_backward(const AttnBwdParams& p, void*) override {
    const AttnParams& f = p.fwd;
    const auto count = static_cast<std::size_t>(f.B) * static_cast<std::size_t>(f.H) *
                       static_cast<std::size_t>(f.T_q) * static_cast<std::size_t>(f.T_k);
    if (p_.get() == nullptr || di_.get() == nullptr || count != count_) {
      throw std::logic_error("cpu-naive: run_backward() without a training-mode prepare()");
    }
    const AttnBwdParams batch = varlen_.apply(p);
    // Each sequence's P where its forward left it; dP and dS in the same part of S's buffer.
    cpu::backward_by_sequence(
        batch, di_.as<float>(),
        [&](int b, const AttnBwdParams& view, const float*, std::int64_t, float* di) {
          const std::int64_t off = b < 0 ? 0 : matrix_offset(batch.fwd, b);
          cpu::naive_backward(
              view, static_cast<const char*>(p_.get()) + off * cpu::storage_bytes(f.dtype),
              s_.as<float>() + off, di, cpu::thread_count());
        });
  }

  void release() override {
    s_.reset();
    p_.reset();
    di_.reset();
    varlen_.reset();
    count_ = 0;
  }

 private:
  // The three phases on a dense batch; row i of (b, h) writes its LSE to
  // lse[(b * H + h) * lse_head_stride + i].
  void run_dense(const AttnParams& p, float* lse, std::int64_t lse_head_stride, int threads) {
    compute_scores(p, threads);
    softmax(p, lse, lse_head_stride, threads);
    compute_output(p, threads);
  }
  void compute_scores(const AttnParams& p, int threads);
  void softmax(const AttnParams& p, float* lse, std::int64_t lse_head_stride, int threads);
  void compute_output(const AttnParams& p, int threads);

  // Elements before sequence b's H x L_q x L_k block of S and P: the earlier sequences'.
  static std::int64_t matrix_offset(const AttnParams& p, int b) {
    std::int64_t off = 0;
    for (int s = 0; s < b; ++s)
      off += static_cast<std::int64_t>(p.H) * sequence_length_q(p, s) * sequence_length_k(p, s);
    return off;
  }

  TrackedBuffer s_, p_, di_;
  cpu::VarlenArrays varlen_;
  std::size_t count_ = 0;
  std::int64_t offset_ = 0;  // run_dense's block of S and P (matrix_offset), in elements
};

void CpuNaiveBackend::run(const AttnParams& batch, void*) {
  const auto count = static_cast<std::size_t>(batch.B) * static_cast<std::size_t>(batch.H) *
                     static_cast<std::size_t>(batch.T_q) * static_cast<std::size_t>(batch.T_k);
  if (s_.get() == nullptr || count != count_) {
    throw std::logic_error("cpu-naive: run() without a matching prepare()");
  }
  const int threads = cpu::thread_count();
  const AttnParams p = varlen_.apply(batch);
  offset_ = 0;
  if (!attn_varlen(p)) {
    run_dense(p, p.lse, p.T_q, threads);
    return;
  }
  for (int b = 0; b < p.B; ++b) {
    if (p.seqused != nullptr) cpu::write_padding_rows(p, b);
    const SequenceView s = sequence_view(p, b);
    offset_ = matrix_offset(p, b);
    if (s.p.T_q > 0) run_dense(s.p, s.lse, s.lse_head_stride, threads);
  }
  offset_ = 0;
}

// Phase 1: one item per (b, h, block of kRows query rows), sweeping all keys.
void CpuNaiveBackend::compute_scores(const AttnParams& p, int threads) {
  const int D = p.D;
  const std::int64_t blocks = (p.T_q + kRows - 1) / kRows;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(threads));
  float* S = s_.as<float>() + offset_;
  cpu::parallel_for(
      threads, static_cast<std::int64_t>(p.B) * p.H * blocks, [&](int t, std::int64_t item) {
        std::vector<float>& buf = scratch[static_cast<std::size_t>(t)];
        buf.resize(static_cast<std::size_t>(kRows + kKeys) * D);
        float* q = buf.data();
        float* k = q + kRows * D;
        const std::int64_t bh = item / blocks;
        const int b = static_cast<int>(bh / p.H), h = static_cast<int>(bh % p.H);
        const int hk = cpu::kv_head(p, h);
        const std::int64_t i0 = item % blocks * kRows;
        const int rows = static_cast<int>(std::min<std::int64_t>(kRows, p.T_q - i0));
        for (int r = 0; r < rows; ++r) {
          cpu::load_row(p.q, cpu::q_offset(p, b, h, i0 + r), D, p.dtype, q + r * D);
        }
        float* s_rows = S + (bh * p.T_q + i0) * p.T_k;
        for (std::int64_t j0 = 0; j0 < p.T_k; j0 += kKeys) {
          const int keys = static_cast<int>(std::min<std::int64_t>(kKeys, p.T_k - j0));
          for (int c = 0; c < keys; ++c) {
            cpu::load_row(p.k, cpu::k_offset(p, b, hk, j0 + c), D, p.dtype, k + c * D);
          }
          cpu::scores_tile(q, D, rows, k, D, keys, D, p.scale, s_rows + j0, p.T_k);
        }
      });
}

// Phase 2: one item per block of kRows rows of the flattened [B*H*T_q, T_k] matrix.
void CpuNaiveBackend::softmax(const AttnParams& p, float* lse_out, std::int64_t lse_head_stride,
                              int threads) {
  const std::int64_t total_rows = static_cast<std::int64_t>(p.B) * p.H * p.T_q;
  const float* S = s_.as<float>() + offset_;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(threads));
  cpu::parallel_for(threads, (total_rows + kRows - 1) / kRows, [&](int t, std::int64_t item) {
    std::vector<float>& e = scratch[static_cast<std::size_t>(t)];
    e.assign(static_cast<std::size_t>(p.T_k), 0.0f);
    const std::int64_t row_end = std::min(total_rows, (item + 1) * kRows);
    for (std::int64_t row = item * kRows; row < row_end; ++row) {
      const float* s = S + row * p.T_k;
      // Keys [first, end) are visible; the range is empty for a row that sees none.
      const std::int64_t first = first_visible_key(p, row % p.T_q);
      const std::int64_t end = std::max(first, last_visible_key(p, row % p.T_q) + 1);
      float m = kNegInf;
      for (std::int64_t j = first; j < end; ++j) m = std::max(m, s[j]);
      // Exponentiate against 0 when nothing is finite (as the GPU kernels do): masked scores
      // give 0, NaN scores still propagate.
      const float m_use = m == kNegInf ? 0.0f : m;
      float l = 0.0f;
      std::fill(e.begin(), e.end(), 0.0f);  // P = 0 outside the visible range
      for (std::int64_t j = first; j < end; ++j) {
        e[j] = std::exp(s[j] - m_use);
        l += e[j];
      }
      float lse = kNegInf;
      if (l != 0.0f) {
        const float inv = 1.0f / l;
        for (std::int64_t j = first; j < end; ++j) e[j] *= inv;
        lse = m + std::log(l);
      }  // else: a row that sees no key keeps P = 0 (so O = 0) and LSE = -inf
      cpu::store_row(p_.get(), offset_ + row * p.T_k, p.T_k, p.dtype, e.data());
      if (lse_out != nullptr) lse_out[row / p.T_q * lse_head_stride + row % p.T_q] = lse;
    }
  });
}

// Phase 3: one item per (b, h, block of kRows query rows); O accumulates in float32. O and V
// are D_v wide (attn_dv), which may differ from the D of Q and K.
void CpuNaiveBackend::compute_output(const AttnParams& p, int threads) {
  const int D = attn_dv(p);
  const std::int64_t blocks = (p.T_q + kRows - 1) / kRows;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(threads));
  cpu::parallel_for(
      threads, static_cast<std::int64_t>(p.B) * p.H * blocks, [&](int t, std::int64_t item) {
        std::vector<float>& buf = scratch[static_cast<std::size_t>(t)];
        buf.assign(static_cast<std::size_t>(kRows) * (D + kKeys) + kKeys * D, 0.0f);
        float* acc = buf.data();        // [rows][D]
        float* pt = acc + kRows * D;    // [rows][kKeys]
        float* v = pt + kRows * kKeys;  // [keys][D]
        const std::int64_t bh = item / blocks;
        const int b = static_cast<int>(bh / p.H), h = static_cast<int>(bh % p.H);
        const int hk = cpu::kv_head(p, h);
        const std::int64_t i0 = item % blocks * kRows;
        const int rows = static_cast<int>(std::min<std::int64_t>(kRows, p.T_q - i0));
        const std::int64_t p_row0 = offset_ + (bh * p.T_q + i0) * p.T_k;
        for (std::int64_t j0 = 0; j0 < p.T_k; j0 += kKeys) {
          const int keys = static_cast<int>(std::min<std::int64_t>(kKeys, p.T_k - j0));
          for (int c = 0; c < keys; ++c) {
            cpu::load_row(p.v, cpu::v_offset(p, b, hk, j0 + c), D, p.dtype, v + c * D);
          }
          for (int r = 0; r < rows; ++r) {
            cpu::load_row(p_.get(), p_row0 + r * p.T_k + j0, keys, p.dtype, pt + r * kKeys);
          }
          cpu::accumulate_pv(pt, kKeys, rows, v, D, keys, D, acc, D);
        }
        for (int r = 0; r < rows; ++r) {
          cpu::store_row(p.o, cpu::o_offset(p, b, h, i0 + r), D, p.dtype, acc + r * D);
        }
      });
}

}  // namespace

std::unique_ptr<Backend> make_cpu_naive_backend() {
  return std::make_unique<CpuNaiveBackend>();
}

}  // namespace fa2b
