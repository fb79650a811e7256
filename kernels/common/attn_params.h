// SPDX-License-Identifier: Apache-2.0
// POD parameters shared by every attention kernel (GPU and CPU). Plain C++ so that host code
// compiled by g++ and device code compiled by nvcc see the same struct.
//
// Tensors: Q [B, H, T_q, D], K [B, H_kv, T_k, D], V [B, H_kv, T_k, D_v], O [B, H, T_q, D_v]
// (D_v = D but in split-head-dim cases, attn_dv()), in fp16 or bf16 (or fp32 on the
// CPU target), addressed through element strides so both bhsd and bshd layouts work; the last
// dim is contiguous. LSE is float32 [B, H, T_q], contiguous, natural-log logsumexp of the
// scaled scores of each row.
//
// Causal masking aligns bottom-right (flash-attention >= 2.1): query row i may attend key j
// when j <= i + (T_k - T_q). A sliding window (flash-attention's window_size) bounds the same
// diagonal on both sides: j >= i + diag - window_left and j <= i + diag + window_right, -1
// leaving a side unbounded; causal is the window [-1, 0] and both together intersect. The
// rule in code: core/mask_rule.h. A row with no visible key (possible when T_q > T_k)
// outputs zeros and LSE = -inf.
//
// A variable-length batch (self-attention lengths, one per sequence; common/varlen.h) sets one
// of two int32 arrays, both null for a dense batch:
//   packed  cu_seqlens_q / cu_seqlens_k: B + 1 token offsets. Sequence b's query row t is row
//           cu_seqlens_q[b] + t of Q and O, its key j row cu_seqlens_k[b] + j of K and V (the
//           batch strides are unused); LSE is [H, total_q] (flash-attention's varlen layout).
//           T_q and T_k are the longest sequence's length; total_q and total_k the arrays' last
//           offsets, for host code that sizes by them without reading device memory (the copy
//           engine's maps of the Hopper kernels).
//   padded  seqused: B real lengths. Every sequence keeps its batch stride in tensors of T_q =
//           T_k = the longest; keys past a sequence's length are masked, and its rows past the
//           length are padding (any finite output; not compared).
// Each sequence is masked as a T_q = T_k = length attention of its own (its causal diagonal
// and window bottom-right aligned at its own end).
//
// A paged KV cache (dense batches only) sets block_table: k and v point to pools of pages,
// [num_pages, page_size, H_kv, D], and key row j of sequence b lives in page
// block_table[b * pages_per_seq + j / page_size], row j % page_size. The k/v batch strides are
// then the page strides (page_size * H_kv * D), the head and row strides those inside a page.
#pragma once

#include <cstdint>

namespace fa2b {

enum class KernelDType : int { fp16 = 0, bf16 = 1, fp32 = 2 };

struct AttnParams {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;  // may be null when a backend does not produce it

  std::int64_t q_batch_stride = 0, q_head_stride = 0, q_row_stride = 0;
  std::int64_t k_batch_stride = 0, k_head_stride = 0, k_row_stride = 0;
  std::int64_t v_batch_stride = 0, v_head_stride = 0, v_row_stride = 0;
  std::int64_t o_batch_stride = 0, o_head_stride = 0, o_row_stride = 0;

  int B = 0, H = 0, H_kv = 0;  // H % H_kv == 0; query head h reads kv head h / (H / H_kv)
  int T_q = 0, T_k = 0, D = 0;
  int D_v = 0;         // head dim of V and O where it differs from D's (Q, K); 0: D. attn_dv()
  float scale = 1.0f;  // softmax scale, usually 1/sqrt(D)
  bool causal = false;
  int window_left = -1, window_right = -1;  // -1: unbounded on that side
  KernelDType dtype = KernelDType::fp16;
  const int* cu_seqlens_q = nullptr;  // packed variable-length batch: B + 1 offsets
  const int* cu_seqlens_k = nullptr;
  int total_q = 0, total_k = 0;      // packed: cu_seqlens_q[B], cu_seqlens_k[B]
  const int* seqused = nullptr;      // padded variable-length batch: B lengths
  const int* block_table = nullptr;  // paged KV cache: [B, pages_per_seq] physical pages
  int page_size = 0, pages_per_seq = 0;
};

// The head dim of V, O (and dO, dV): D unless the case splits them (D_qk != D_v).
inline int attn_dv(const AttnParams& p) {
  return p.D_v > 0 ? p.D_v : p.D;
}

// Whether `p` describes a paged KV cache. Support checks see a case's params before the runner
// has staged its table, so page_size alone says paged there; launches have both.
inline bool attn_paged(const AttnParams& p) {
  return p.block_table != nullptr || p.page_size > 0;
}

// The backward of one attention call (training). `fwd` holds the forward's tensors, all read
// here: Q, K, V, the forward's output O and its saved LSE. d_o is the incoming gradient dL/dO
// (laid out like O, so O's strides address it); the outputs d_q, d_k, d_v are laid out like Q,
// K and V (their strides). With grouped-query attention dK and dV of a KV head are the sums
// over the query heads of its group. Workspaces (fp32 dQ accumulators, the row sums
// D_i = rowsum(dO o O)) belong to the backend, which allocates them in prepare().
struct AttnBwdParams {
  AttnParams fwd;
  const void* d_o = nullptr;
  void* d_q = nullptr;
  void* d_k = nullptr;
  void* d_v = nullptr;
};

}  // namespace fa2b
