// SPDX-License-Identifier: Apache-2.0
// Float64 reference attention on selected query rows, with inputs regenerated from the same
// deterministic generator the runner fills tensors with (kernels/common/input_gen.h), rounded
// to the case's storage dtype, so no tensor has to be copied back from the device.
#pragma once

#include <cstdint>
#include <vector>

#include "core/case.h"
#include "core/result.h"

namespace fa2b {

struct RowRef {
  std::int64_t b, h, i;  // batch, query head, query row
};

// All rows when B*H*T_q <= max_rows; otherwise a deterministic sample of at most max_rows
// rows spread over a few (batch, head) pairs, always including the first and last row of each
// sampled head (the causal diagonal's corners and the masked tail).
std::vector<RowRef> sample_rows(const Case& c, int max_rows, std::uint64_t seed);

// The stored (rounded) input element as a float, for tensor q/k/v/dO at logical [b, h, t, d]
// (dO, the training modes' incoming gradient, is shaped like Q).
float stored_input(const Case& c, int tensor /*1=q,2=k,3=v,4=dO*/, std::int64_t b, std::int64_t h,
                   std::int64_t t, std::int64_t d);

// Reference output for each row: out[r * D + d]; lse[r] (natural log; -inf for a row that sees
// no key). Multithreaded over rows.
void reference_rows(const Case& c, const std::vector<RowRef>& rows, std::vector<double>& out,
                    std::vector<double>& lse);

// Compares `got` (row-major rows x D, already converted to float) with the reference.
// Non-finite values in `got` count as errors (they make max_abs_err infinite).
Accuracy compare_rows(const Case& c, const std::vector<RowRef>& rows,
                      const std::vector<double>& ref, const std::vector<float>& got);
// The same comparison for any list of values; `nonfinite` (may be null) gets the count of
// non-finite values in `got`.
ErrorStats compare_values(const std::vector<double>& ref, const std::vector<float>& got,
                          std::int64_t* nonfinite);

}  // namespace fa2b
