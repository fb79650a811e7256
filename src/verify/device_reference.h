// SPDX-License-Identifier: Apache-2.0
// The float64 reference computed where the tensors are: a job for the device (a CUDA platform
// runs it with src/verify/cuda/device_reference.cu) that reads the case's stored, rounded
// Q, K, V, dO straight from its device buffers (the values stored_input regenerates on the
// host, bit for bit) and returns, for each given row, the float64 reference beside the
// backend's output gathered as float, so that compare_values judges it unchanged.
//
// Plain data: the rows are described by element offsets and the visible key range the host
// computed with visible_keys (reference.h), so the mask rule exists once, on the host.
#pragma once

#include <cstdint>
#include <vector>

namespace fa2b {

enum class RefKind : int {
  fwd = 0,   // rows: O (ref, got) and LSE
  dq = 1,    // rows: dQ (ref, got); the rows' O, LSE and D_i are computed first
  dkdv = 2,  // keys: dK (ref, got) and dV (ref2, got2); `rows` are every query row of the
             // keys' groups (their LSE and D_i computed first), keys[k].seg_* index them
};

// One query row: q_off is the element offset of Q[b, h, row, 0] (O, dO and dQ share Q's
// layout); kv_base the element offset of K[b, hk, row 0, 0] (non-paged) or the index of the
// sequence's first page-table entry (paged) and kv_row the logical row of key 0 (a packed
// batch's sequence offset); keys first..last are visible (none when last < first).
struct RefQueryRow {
  std::int64_t q_off = 0, kv_base = 0, kv_row = 0;
  std::int64_t first = 0, last = -1;
  std::int32_t hk = 0, pad = 0;
};

// One key row j of a (b, hk): k_off the element offset of K[b, hk, j, 0] (dK, dV and V share
// K's layout; training cases are never paged); the query rows that may see it are
// rows[seg_begin, seg_end) (each row's own first..last decides).
struct RefKeyRow {
  std::int64_t k_off = 0, j = 0;
  std::int64_t seg_begin = 0, seg_end = 0;
};

struct RefJob {
  RefKind kind = RefKind::fwd;
  int dtype = 0;  // KernelDType: 0 fp16, 1 bf16, 2 fp32
  int D = 0;
  double scale = 0;               // 1 / sqrt(D), as the host reference computes it
  std::int64_t k_row_stride = 0;  // elements between key rows (non-paged)
  // Paged K/V: pool [pages, page_size, H_kv, D], table [B, pages_per_seq] (device pointer).
  bool paged = false;
  const std::int32_t* table = nullptr;
  std::int64_t page_size = 0, H_kv = 0;
  const void *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *d_o = nullptr;
  const void *dq = nullptr, *dk = nullptr, *dv = nullptr;
  std::vector<RefQueryRow> rows;
  std::vector<RefKeyRow> keys;
};

// Per row (fwd, dq) or key row (dkdv), row-major [n][D]: ref/got the first tensor (O, dQ or
// dK), ref2/got2 dV; lse the fwd rows' LSE (natural log; -inf for a row that sees no key).
struct RefJobOut {
  std::vector<double> ref, ref2, lse;
  std::vector<float> got, got2;
};

}  // namespace fa2b
