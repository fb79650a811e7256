// SPDX-License-Identifier: Apache-2.0
// The shape algebra: FLOPs and bytes of a case, predicted without running anything.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend_catalog.h"
#include "core/case.h"
#include "core/result.h"

namespace fa2b {

// Forward FLOPs by flash-attention's convention: 4*B*H*T_q*T_k*D, halved when causal
// (2*B*H*T_q*T_k*(D + D_v) where V and O have their own head dim D_v); with a
// sliding window 4*B*H*D times the (query row, key) pairs it leaves visible (visible_pairs,
// causal intersected with it). A variable-length batch counts its real tokens only: the sum
// over its sequences of each one's FLOPs at its own length (the useful FLOPs).
double attention_flops(const Case& c);
// FLOPs of the case's mode as a multiple of the forward's (flash-attention's convention):
// fwd 1, bwd 2.5 (the backward's five GEMMs against the forward's two), fwd_bwd 3.5.
double mode_flops_factor(Mode m);
// attention_flops(c) * mode_flops_factor(c.mode): what TFLOP/s of the case is computed from.
double case_flops(const Case& c);
// The FLOPs the case's kernels execute: a padded variable-length batch computes every one of its
// B x max(lengths) positions (its masked padding included), so the dense shape's FLOPs; every
// other case case_flops(c).
double executed_flops(const Case& c);

// Bytes of Q, K, V and O in the case's dtype plus the float32 LSE (a packed batch's tensors hold
// its total_tokens rows, a padded one B * T).
std::int64_t io_bytes(const Case& c);
// Bytes of the training modes' extra tensors: dO, dQ (like Q) and dK, dV (like K, V); 0 in fwd.
std::int64_t grad_io_bytes(const Case& c);
// The head dim a backend that pads (catalog pads_head_dim) runs D at: the next multiple of 8.
std::int64_t head_dim_padded_to_8(const Case& c);
// Bytes of the zero-padded copies such a backend makes of Q, K, V, O (and in the training modes
// dO, dQ, dK, dV) when c.D is not a multiple of 8; 0 otherwise and for other backends.
std::int64_t head_dim_padding_bytes(const Case& c);
// Fewest bytes the case's mode must move through memory. Forward: Q, K, V read once, O and LSE
// written once. Backward: Q, K, V, O, dO, LSE read once, dQ, dK, dV written once. fwd_bwd: both.
std::int64_t min_traffic_bytes(const Case& c);
// What the forward keeps for the backward (0 in fwd mode). Every backend keeps O and the
// float32 LSE; O is an output anyway, so only the LSE (4*B*H*T_q) is counted. Backends whose
// catalog entry materialises the scores (naive, standard, cpu-naive) also keep P
// [B, H, T_q, T_k] in the input dtype.
std::int64_t saved_bytes(const Case& c);
// Tracked workspace the backward needs beyond the forward's buffers (0 in fwd mode): the
// formula of the case's backend in the catalog (core/backend_catalog.cpp); the float32 row
// sums D_i, 4*B*H*T_q, for a backend not in it.
std::int64_t backward_workspace_bytes(const Case& c);
// The float32 row sums D_i = rowsum(dO * O) of a backward, 4*B*H*T_q: the whole backward
// workspace of the CPU backends (which reuse S's float32 buffer for dP and dS).
std::int64_t row_sums_bytes(const Case& c);
// A variable-length batch's int32 arrays, one tracked buffer the backend allocates in prepare():
// packed, cu_seqlens_q and cu_seqlens_k (2 * (B + 1)); padded, the B lengths; 0 for a dense
// case.
std::int64_t varlen_arrays_bytes(const Case& c);
// The T_q x T_k score matrix of every (batch, head) at `elem_bytes` per element
// (the seed notebook counts it at the input dtype's 2 bytes).
std::int64_t score_matrix_bytes(const Case& c, int elem_bytes);
// A T_q x T_k matrix of every (batch, head) as a backend storing its scores `s` allocates it:
// score_matrix_bytes, or for padded_rows each row padded to 8 elements and the whole rounded up
// to 256 bytes.
std::int64_t stored_score_matrix_bytes(const Case& c, ScoreStorage s, int elem_bytes);
// `bytes` rounded up to a multiple of 256, as the CUDA allocations are.
inline std::int64_t aligned_256(std::int64_t bytes) {
  return (bytes + 255) / 256 * 256;
}
// Flash's running (m, l, O) state if it were kept for all rows in float32:
// 4 * B * H * T_q * (2 + D) bytes (the seed notebook's formula).
std::int64_t flash_state_bytes(const Case& c);

// The cuBLAS workspace the "standard" backend hands cuBLAS (tracked like S and P): 32 MiB, what
// cuBLAS recommends on Hopper.
inline constexpr std::int64_t kStandardCublasWorkspaceBytes = std::int64_t{32} << 20;

// Named plan metrics ("flops", "io_bytes", "score_matrix_bytes", "flash_state_bytes",
// "predicted_bytes" for the case's backend), as plan checks use them.
const std::vector<std::string>& plan_metric_names();
std::optional<double> plan_metric_value(const Case& c, std::string_view name);

// What a cudnn case's prediction leaves out (MemoryStats::predicted_excludes).
inline constexpr const char* kCudnnWorkspaceExcluded = "cudnn workspace";

// The predictions a result carries for every case, run or not: predicted_bytes, saved_bytes,
// and what predicted_bytes leaves out (cudnn: its plans' workspaces). Device-independent: fa2's
// split-KV workspace, which depends on the device's multiprocessors, is added by
// backends/predicted_memory.h.
MemoryStats predicted_memory(const Case& c);

// Overflow guard: element count of the largest tensor or matrix a case implies fits in int64.
bool sizes_fit_int64(const Case& c, std::string* why);

}  // namespace fa2b
