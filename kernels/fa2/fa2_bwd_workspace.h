// SPDX-License-Identifier: Apache-2.0
// The fa2 backward's device workspace, in one definition for the kernels' host side and the
// plan's prediction (core/backend_catalog.cpp): the fp32 dQ accumulator [B, H, T_q, D_tile] and
// the fp32 row sums D_i [B, H, T_q], where D_tile is the head dim of the tile that runs D (D
// itself when listed, else the next listed one: fa2_padded_head_dim).
#pragma once

#include <cstddef>
#include <cstdint>

#include "fa2/fa2_padded_head_dims.h"

namespace fa2b {

constexpr std::size_t fa2_bwd_workspace_bytes(std::int64_t B, std::int64_t H, std::int64_t T_q,
                                              int D) {
  return 4ull * static_cast<std::size_t>(B * H * T_q) *
         (static_cast<std::size_t>(fa2_padded_head_dim(D)) + 1);
}

}  // namespace fa2b
