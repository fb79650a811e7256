// The shape algebra: FLOPs and bytes of a case, predicted without running anything.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"

namespace fa2b {

// Forward FLOPs by flash-attention's convention: 4*B*H*T_q*T_k*D, halved when causal.
double attention_flops(const Case& c);

// Bytes of Q, K, V and O in the case's dtype plus the float32 LSE.
std::int64_t io_bytes(const Case& c);
// Fewest bytes one forward must move through memory: Q, K, V read once, O and LSE written once.
std::int64_t min_traffic_bytes(const Case& c);
// The T_q x T_k score matrix of every (batch, head) at `elem_bytes` per element
// (the seed notebook counts it at the input dtype's 2 bytes).
std::int64_t score_matrix_bytes(const Case& c, int elem_bytes);
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

// Overflow guard: element count of the largest tensor or matrix a case implies fits in int64.
bool sizes_fit_int64(const Case& c, std::string* why);

}  // namespace fa2b
