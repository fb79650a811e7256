// SPDX-License-Identifier: Apache-2.0
// Which backward cases the cudnn backend refuses before building a graph: the rules
// cudnn-frontend's SDPA backward node applies itself (pre_validate_node), for the shapes and
// options this backend builds (no bias, dropout, padding or ragged tensors). Host only, so it
// is unit-tested without a GPU or cuDNN.
#pragma once

#include <cstdint>
#include <string>

#include "core/case.h"

namespace fa2b {

// The float32 tensors cudnn-frontend keeps in its own workspace beside the backward's plan
// workspace, which this backend allocates through the tracker: the dQ accumulator
// [B, H, T_q, D] and the row sums D_i = rowsum(dO o O) [B, H, T_q], 4*B*H*T_q*(D + 1) bytes.
// The row sums start at byte sdpa_bwd_row_sums_offset (a multiple of 16 when D is one of 4).
std::int64_t sdpa_bwd_aux_bytes(std::int64_t B, std::int64_t H, std::int64_t T_q, std::int64_t D);
std::int64_t sdpa_bwd_row_sums_offset(std::int64_t B, std::int64_t H, std::int64_t T_q,
                                      std::int64_t D);

// Empty when cuDNN's backward may take the case, else why not. `cc_major` is the device's
// compute capability major (9 for Hopper), `cudnn_version` cudnnGetVersion()'s number
// (91900 for 9.19.0). The forward's own refusals (fp32, T_q > T_k under the causal mask, ...)
// are the caller's.
std::string sdpa_bwd_refusal(const Case& c, int cc_major, std::int64_t cudnn_version);

}  // namespace fa2b
