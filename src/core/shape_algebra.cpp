// SPDX-License-Identifier: Apache-2.0
#include "core/shape_algebra.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "core/attention_mask.h"
#include "core/paged_kv.h"
#include "core/seq_lengths.h"

namespace fa2b {
namespace {

// Elements of Q and O together (query side) and of K and V together (key side): a packed
// batch holds its real tokens only, a padded or dense one B * T of them. Q and K are D wide,
// V and O D_v wide (Dv(), D unless the case splits them).
std::int64_t query_pair_elems(const Case& c) {
  return query_rows(c) * c.H * (c.D + c.Dv());
}
std::int64_t key_pair_elems(const Case& c) {
  return key_rows(c) * c.H_kv * (c.D + c.Dv());
}

// How the case's backend stores its scores; a backend outside the catalog streams.
ScoreStorage score_storage(const Case& c) {
  const BackendEntry* e = find_backend_entry(c.backend);
  return e ? e->scores : ScoreStorage::streams;
}

}  // namespace

double mode_flops_factor(Mode m) {
  switch (m) {
    case Mode::fwd:
      return 1.0;
    case Mode::bwd:
      return 2.5;
    case Mode::fwd_bwd:
      return 3.5;
  }
  return 1.0;
}

double case_flops(const Case& c) {
  return attention_flops(c) * mode_flops_factor(c.mode);
}

namespace {

// The forward FLOPs of c's B x T_q x T_k shape, every padded position counted: 2*D for a
// score and 2*D_v for its share of the output, per (query row, key) pair and head.
double shape_flops(const Case& c) {
  const double per_pair =
      2.0 * static_cast<double>(c.B) * static_cast<double>(c.H) * static_cast<double>(c.D + c.Dv());
  // A window counts the pairs it leaves visible (it is what makes a small window cheap); causal
  // alone keeps flash-attention's "half", so its TFLOP/s compare with theirs.
  if (c.window.bounded()) return per_pair * static_cast<double>(visible_pairs(c));
  const double f = per_pair * static_cast<double>(c.T_q) * static_cast<double>(c.T_k);
  return c.causal ? f / 2.0 : f;
}

}  // namespace

double attention_flops(const Case& c) {
  if (!c.varlen()) return shape_flops(c);
  // Each sequence is its own B = 1 attention of its length (its mask and window its own).
  double sum = 0;
  Case one = c;
  one.lengths.clear();
  one.B = 1;
  for (const std::int64_t n : c.lengths) {
    one.T_q = one.T_k = n;
    sum += shape_flops(one);
  }
  return sum;
}

double executed_flops(const Case& c) {
  if (c.varlen() && c.packing == Packing::padded) {
    Case dense = c;
    dense.lengths.clear();
    return shape_flops(dense) * mode_flops_factor(c.mode);
  }
  return case_flops(c);
}

std::int64_t io_bytes(const Case& c) {
  const std::int64_t e = dtype_bytes(c.dtype);
  const std::int64_t qo = query_pair_elems(c) * e;
  // A paged cache holds K and V in whole pages (the last one of a sequence partly used) and
  // adds its int32 page table.
  const std::int64_t kv =
      c.paged() ? 2 * page_pool_bytes(c) + page_table_bytes(c) : key_pair_elems(c) * e;
  const std::int64_t lse = query_rows(c) * c.H * 4;
  return qo + kv + lse;
}

std::int64_t grad_io_bytes(const Case& c) {
  if (!runs_backward(c.mode)) return 0;
  const std::int64_t e = dtype_bytes(c.dtype);
  // dO (D_v) and dQ (D) on the query side, dK (D) and dV (D_v) on the key side.
  return query_pair_elems(c) * e + key_pair_elems(c) * e;
}

std::int64_t head_dim_padded_to_8(const Case& c) {
  return (c.D + 7) / 8 * 8;
}

std::int64_t head_dim_padding_bytes(const Case& c) {
  const BackendEntry* e = find_backend_entry(c.backend);
  if (e == nullptr || !e->pads_head_dim || c.D % 8 == 0) return 0;
  Case padded = c;
  padded.D = head_dim_padded_to_8(c);
  padded.D_v = 0;  // equal head dims only (split ones are refused)
  const std::int64_t e_bytes = dtype_bytes(c.dtype);
  const std::int64_t forward = (query_pair_elems(padded) + key_pair_elems(padded)) * e_bytes;
  return runs_backward(c.mode) ? 2 * forward : forward;
}

std::int64_t min_traffic_bytes(const Case& c) {
  // The backward reads what the forward touched (Q, K, V, O, LSE) plus dO and writes the three
  // gradients: io_bytes + grad_io_bytes.
  const std::int64_t backward = io_bytes(c) + grad_io_bytes(c);
  switch (c.mode) {
    case Mode::fwd:
      return io_bytes(c);
    case Mode::bwd:
      return backward;
    case Mode::fwd_bwd:
      return io_bytes(c) + backward;
  }
  return io_bytes(c);
}

namespace {

std::int64_t lse_bytes(const Case& c) {
  return query_rows(c) * c.H * 4;
}

// S or P as the case's backend allocates it.
std::int64_t matrix_bytes(const Case& c, int elem_bytes) {
  return stored_score_matrix_bytes(c, score_storage(c), elem_bytes);
}

}  // namespace

std::int64_t stored_score_matrix_bytes(const Case& c, ScoreStorage s, int elem_bytes) {
  if (s != ScoreStorage::padded_rows) return score_matrix_bytes(c, elem_bytes);
  const std::int64_t rows = c.B * c.H * c.T_q, ld = (c.T_k + 7) / 8 * 8;
  return aligned_256(rows * ld * elem_bytes);
}

std::int64_t saved_bytes(const Case& c) {
  if (!runs_backward(c.mode)) return 0;
  std::int64_t bytes = lse_bytes(c);
  if (materialises_scores(score_storage(c))) bytes += matrix_bytes(c, dtype_bytes(c.dtype));
  return bytes;
}

std::int64_t backward_workspace_bytes(const Case& c) {
  if (!runs_backward(c.mode)) return 0;
  const BackendEntry* e = find_backend_entry(c.backend);
  return e ? e->backward_workspace_bytes(c) : row_sums_bytes(c);
}

std::int64_t row_sums_bytes(const Case& c) {
  return 4 * query_rows(c) * c.H;
}

std::int64_t varlen_arrays_bytes(const Case& c) {
  if (!c.varlen()) return 0;
  return c.packing == Packing::packed ? 2 * (c.B + 1) * 4 : c.B * 4;
}

std::int64_t score_matrix_bytes(const Case& c, int elem_bytes) {
  return c.B * c.H * c.T_q * c.T_k * elem_bytes;
}

std::int64_t flash_state_bytes(const Case& c) {
  return 4 * query_rows(c) * c.H * (2 + c.Dv());  // m, l and the O accumulator (D_v wide)
}

// Predicted peak of a case's tracked memory: the inputs and outputs (in the training modes dO
// and the gradients too), plus for materialising backends S in float32 and P in the input
// dtype (P is what their forward saves for the backward), plus the forward's fixed workspace
// of the catalog entry (standard: cuBLAS's), plus the backward's workspace, plus the padded
// copies of a backend that pads a head dim that is not a multiple of 8. Every buffer lives for
// the whole case, so the peak is their sum.
static std::int64_t predicted_peak_bytes(const Case& c) {
  std::int64_t bytes = io_bytes(c) + grad_io_bytes(c) + backward_workspace_bytes(c) +
                       varlen_arrays_bytes(c) + head_dim_padding_bytes(c);
  if (const BackendEntry* e = find_backend_entry(c.backend)) bytes += e->forward_workspace_bytes;
  if (!materialises_scores(score_storage(c))) return bytes;
  return bytes + matrix_bytes(c, 4) + matrix_bytes(c, dtype_bytes(c.dtype));
}

const std::vector<std::string>& plan_metric_names() {
  static const std::vector<std::string> names = {"flops",
                                                 "io_bytes",
                                                 "score_matrix_bytes",
                                                 "score_matrix_fp32_bytes",
                                                 "flash_state_bytes",
                                                 "saved_bytes",
                                                 "backward_workspace_bytes",
                                                 "predicted_bytes",
                                                 "useful_flops",
                                                 "executed_flops",
                                                 "total_tokens",
                                                 "padding_ratio",
                                                 "page_pool_bytes",
                                                 "page_table_bytes"};
  return names;
}

std::optional<double> plan_metric_value(const Case& c, std::string_view name) {
  if (name == "flops") return case_flops(c);
  if (name == "io_bytes") return static_cast<double>(io_bytes(c));
  if (name == "score_matrix_bytes")
    return static_cast<double>(score_matrix_bytes(c, dtype_bytes(c.dtype)));
  if (name == "score_matrix_fp32_bytes") return static_cast<double>(score_matrix_bytes(c, 4));
  if (name == "flash_state_bytes") return static_cast<double>(flash_state_bytes(c));
  if (name == "saved_bytes") return static_cast<double>(saved_bytes(c));
  if (name == "backward_workspace_bytes") return static_cast<double>(backward_workspace_bytes(c));
  if (name == "predicted_bytes") return static_cast<double>(predicted_peak_bytes(c));
  if (name == "useful_flops") return case_flops(c);
  if (name == "executed_flops") return executed_flops(c);
  if (name == "total_tokens") return static_cast<double>(total_tokens(c));
  if (name == "padding_ratio") return padding_ratio(c);
  // K's and V's pools together; 0 for a contiguous case, like the page table.
  if (name == "page_pool_bytes") return static_cast<double>(2 * page_pool_bytes(c));
  if (name == "page_table_bytes") return static_cast<double>(page_table_bytes(c));
  return std::nullopt;
}

MemoryStats predicted_memory(const Case& c) {
  MemoryStats m;
  m.predicted_bytes = predicted_peak_bytes(c);
  m.saved_bytes = saved_bytes(c);
  // cuDNN's plans size their own workspaces once built (tracked, not predicted).
  if (c.backend == "cudnn") m.predicted_excludes.push_back(kCudnnWorkspaceExcluded);
  return m;
}

bool sizes_fit_int64(const Case& c, std::string* why) {
  // Every byte count the algebra, the runner and the backends form, each in 64-bit integers
  // with an overflow check (a double estimate misses products such as T_k*D when T_q is small).
  // The factor 8 leaves room for the backward's gradients, padding and the sums of terms.
  struct Term {
    const char* what;
    const char* product;
    std::vector<std::int64_t> factors;
  };
  const std::int64_t elem = dtype_bytes(c.dtype);
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  // naive pads score rows to 8 elements; -1 (refused below) where even that overflows
  const std::int64_t padded_t_k = c.T_k > max - 16 ? -1 : c.T_k / 8 * 8 + 8;
  const std::int64_t d = std::max(c.D, c.Dv());
  const std::int64_t d_plus_2 = d > max - 2 ? -1 : d + 2;
  const Term terms[] = {
      {"Q and O", "B*H*T_q*D", {c.B, c.H, c.T_q, d, elem}},
      {"K and V", "B*H_kv*T_k*D", {c.B, c.H_kv, c.T_k, d, elem}},
      {"the score matrix", "B*H*T_q*T_k", {c.B, c.H, c.T_q, padded_t_k, 4}},
      {"the flash state (m, l, O)", "B*H*T_q*(D+2)", {c.B, c.H, c.T_q, d_plus_2, 4}},
  };
  std::int64_t total = 0;
  for (const Term& t : terms) {
    std::int64_t bytes = 1;
    bool fits = true;
    for (const std::int64_t f : t.factors)
      fits = fits && f >= 0 && !__builtin_mul_overflow(bytes, f, &bytes);
    fits = fits && !__builtin_mul_overflow(bytes, std::int64_t{8}, &bytes) &&
           !__builtin_add_overflow(total, bytes, &total);
    if (!fits) {
      if (why) {
        std::string values;
        for (std::size_t i = 0; i + 1 < t.factors.size(); ++i) {
          values += (i ? "*" : "") + std::to_string(t.factors[i]);
        }
        *why = fmt::format("{} ({} = {} elements of {} bytes) overflow 64-bit byte counts", t.what,
                           t.product, values, t.factors.back());
      }
      return false;
    }
  }
  return true;
}

}  // namespace fa2b
