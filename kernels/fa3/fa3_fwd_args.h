// SPDX-License-Identifier: Apache-2.0
// The fa3 forward's kernel parameter: the attention call and the copy engine's maps of Q, K
// and V (hopper/tensor_map.h), passed by value as one __grid_constant__ struct so the maps sit
// in parameter memory, where the copy instructions may read them.
#pragma once

#include <cuda.h>

#include "common/attn_params.h"

namespace fa2b {

struct Fa3FwdArgs {
  AttnParams p;
  CUtensorMap q;  // boxes of 64 columns x kBlockM rows
  CUtensorMap k;  // boxes of 64 columns x kBlockN rows
  CUtensorMap v;
  int l2_section;  // (batch, head) pairs per L2 section of the tile order (common/tile_order.h)
  CUtensorMap o;   // boxes of 64 columns x 64 rows (one consumer's): tiles with kTmaStore only
};

}  // namespace fa2b
