// SPDX-License-Identifier: Apache-2.0
// Float64 reference of the attention backward on sampled rows, with Q, K, V and dO regenerated
// from the deterministic generator the runner fills them with (stored_input), like the forward
// reference. A dQ row needs every key of its query row; a dK or dV row needs every query row
// of every query head of its KV head's group (their P and D_i), so dK/dV sample key rows of a
// few KV heads and compute those heads' forward in full.
#pragma once

#include <cstdint>
#include <vector>

#include "core/case.h"
#include "verify/reference.h"

namespace fa2b {

struct KeyRowRef {
  std::int64_t b, hk, j;  // batch (a variable-length batch's sequence), KV head, key row in it
};

// All key rows when B*H_kv*T_k <= max_rows; otherwise at most max_rows key rows of at most two
// KV heads (the first and the last), always with their first and last key. A variable-length
// batch samples its real keys only (j < lengths[b]), every non-empty sequence's first and last
// in the first and last KV head, each sequence masked and normalised as an attention of its own.
std::vector<KeyRowRef> sample_key_rows(const Case& c, int max_rows, std::uint64_t seed);

struct GradReference {
  std::vector<double> dq;  // [query row][D], rows as given
  std::vector<double> dk;  // [key row][D], key rows as given
  std::vector<double> dv;  // [key row][D_v] (c.Dv())
};

// dQ = scale dS K, dK = scale dS^T Q (summed over the group), dV = P^T dO, with
// dS = P o (dO V^T - D_i) and D_i = rowsum(dO o O); rows that see no key contribute nothing.
// Multithreaded.
GradReference reference_grads(const Case& c, const std::vector<RowRef>& rows,
                              const std::vector<KeyRowRef>& keys);

}  // namespace fa2b
