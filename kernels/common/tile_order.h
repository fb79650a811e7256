// SPDX-License-Identifier: Apache-2.0
// The order in which a forward grid visits its query tiles, for host (the section size, the
// tests) and device alike.
//
// Every query tile of a (batch, head) pair reads all of the pair's K and V. When the tiles that
// run at once belong to many pairs, their K and V together outgrow L2 and each tile streams
// them from DRAM again (the H200's DRAM becomes the bound: docs/performance.md). So the
// pairs are cut into L2 sections of consecutive pairs (a few, or as many as have their K and V fit
// in a share of L2 together: the launcher's choice), the grid walks the sections one after the
// other, and within a section it goes heaviest first
// (every pair's last m-block, then the one before it, ...), so that under the causal mask the
// grid still ends on its lightest tiles.
#pragma once

#include <cstdint>

#include "core/host_device.h"

namespace fa2b {

struct QueryTilePlace {
  int m_block;  // query rows [m_block * kBlockM, ...)
  int bh;       // batch * H + head
};

// Tile t (0 <= t < num_m * num_bh) of the order above, with sections of `section` pairs
// (1 <= section <= num_bh; the last section holds the remainder).
FA2B_HD QueryTilePlace l2_section_tile(int t, int num_m, int num_bh, int section) {
  const int per_section = section * num_m;
  const int s = t / per_section;
  const int r = t - s * per_section;
  const int rest = num_bh - s * section;
  const int pairs = rest < section ? rest : section;
  return {num_m - 1 - r / pairs, s * section + r % pairs};
}

// How many consecutive (batch, head) pairs a section holds: as many as have their K and V
// within `budget_bytes` together (the heads of one KV group share theirs, and are consecutive),
// at least one, at most num_bh.
inline int l2_section_pairs(std::int64_t budget_bytes, int num_bh, int T_k, int D, int elem_bytes,
                            int H, int H_kv) {
  const std::int64_t group = H_kv > 0 && H % H_kv == 0 ? H / H_kv : 1;
  const std::int64_t kv_bytes = 2 * static_cast<std::int64_t>(T_k) * D * elem_bytes;
  const std::int64_t pairs = kv_bytes > 0 ? budget_bytes * group / kv_bytes : num_bh;
  return static_cast<int>(pairs < 1 ? 1 : (pairs > num_bh ? num_bh : pairs));
}

}  // namespace fa2b
