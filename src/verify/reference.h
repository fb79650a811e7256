// SPDX-License-Identifier: Apache-2.0
// Float64 reference attention on selected query rows, with inputs regenerated from the same
// deterministic generator the runner fills tensors with (kernels/common/input_gen.h), rounded
// to the case's storage dtype, so no tensor has to be copied back from the device.
#pragma once

#include <cstdint>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "core/seq_lengths.h"

namespace fa2b {

struct RowRef {
  std::int64_t b, h, i;  // batch, query head, query row
};

// A variable-length batch samples its real rows only (row i < lengths[b]), every non-empty
// sequence's first and last among them (reference.cpp says how). A dense batch:
// all rows when B*H*T_q <= max_rows; otherwise a deterministic sample of at most max_rows
// rows spread over a few (batch, head) pairs, always including the first and last row of each
// sampled head (the causal diagonal's corners, the masked tail, a window's edges).
std::vector<RowRef> sample_rows(const Case& c, int max_rows, std::uint64_t seed);

// The keys query row i of a dense case sees, first .. last (bottom-right aligned causal mask and
// sliding window intersected, core/attention_mask.h); empty (count 0) for a row that sees none.
struct VisibleKeys {
  std::int64_t first = 0, last = -1;
  std::int64_t count() const { return last >= first ? last - first + 1 : 0; }
};
VisibleKeys visible_keys(const Case& c, std::int64_t i);
// The same for query row i of sequence b of any batch: a variable-length batch's sequence is
// masked as an attention of its own length over its own keys (what reference_rows uses).
VisibleKeys row_visible_keys(const Case& c, std::int64_t b, std::int64_t i);

// The stored (rounded) input element as a float, for tensor q/k/v/dO at logical [b, h, t, d]
// (dO, the training modes' incoming gradient, is shaped like O: Q's heads and rows, V's head
// dim D_v = c.Dv(); d < D for q and k, d < D_v for v and dO). A dense or padded batch's
// index; a packed batch's tokens need the next one.
float stored_input(const Case& c, int tensor /*1=q,2=k,3=v,4=dO*/, std::int64_t b, std::int64_t h,
                   std::int64_t t, std::int64_t d);

// The same for token t of sequence b of any batch, placed by `layout` (query_layout(c) for q and
// dO, key_layout(c) for k and v; core/seq_lengths.h).
float stored_input(const Case& c, const TokenLayout& layout, int tensor, std::int64_t b,
                   std::int64_t h, std::int64_t t, std::int64_t d);

// Reference output for each row: out[r * Dv + d] (Dv = c.Dv(), V's and O's head dim); lse[r]
// (natural log; -inf for a row that sees no key). Multithreaded over rows.
void reference_rows(const Case& c, const std::vector<RowRef>& rows, std::vector<double>& out,
                    std::vector<double>& lse);

// Compares `got` (row-major rows x Dv, already converted to float) with the reference.
// Non-finite values in `got` count as errors (they make max_abs_err infinite).
Accuracy compare_rows(const Case& c, const std::vector<RowRef>& rows,
                      const std::vector<double>& ref, const std::vector<float>& got);
// compare_values' sums, fed in pieces (a long comparison chunk by chunk gives the same stats
// as one call over all of it).
class ErrorAccumulator {
 public:
  void add(const double* ref, const float* got, std::size_t n);
  ErrorStats stats() const;
  std::int64_t nonfinite() const { return nonfinite_; }
  std::int64_t count() const { return n_; }

 private:
  double max_abs_ = 0, sum_abs_ = 0, diff2_ = 0, ref2_ = 0;
  std::int64_t nonfinite_ = 0, n_ = 0;
};
// The same comparison for any list of values; `nonfinite` (may be null) gets the count of
// non-finite values in `got`.
ErrorStats compare_values(const std::vector<double>& ref, const std::vector<float>& got,
                          std::int64_t* nonfinite);

}  // namespace fa2b
