// SPDX-License-Identifier: Apache-2.0
// D_i = rowsum(dO o O), shared by both CPU backwards.
#include <vector>

#include "backends/cpu_backward.h"
#include "backends/cpu_common.h"

namespace fa2b::cpu {

void row_sums_do_o(const AttnBwdParams& p, float* di, int threads) {
  const AttnParams& f = p.fwd;
  const std::int64_t rows = static_cast<std::int64_t>(f.B) * f.H * f.T_q;
  constexpr std::int64_t kRowsPerItem = 64;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(threads));
  parallel_for(threads, (rows + kRowsPerItem - 1) / kRowsPerItem, [&](int t, std::int64_t item) {
    std::vector<float>& buf = scratch[static_cast<std::size_t>(t)];
    // O and dO are D_v wide (V's head dim), which may differ from Q's and K's D.
    const int Dv = attn_dv(f);
    buf.resize(2 * static_cast<std::size_t>(Dv));
    float* o = buf.data();
    float* d_o = o + Dv;
    const std::int64_t end = std::min(rows, (item + 1) * kRowsPerItem);
    for (std::int64_t row = item * kRowsPerItem; row < end; ++row) {
      const int b = static_cast<int>(row / (static_cast<std::int64_t>(f.H) * f.T_q));
      const int h = static_cast<int>(row / f.T_q % f.H);
      const std::int64_t i = row % f.T_q;
      load_row(f.o, o_offset(f, b, h, i), Dv, f.dtype, o);
      load_row(p.d_o, o_offset(f, b, h, i), Dv, f.dtype, d_o);
      float sum = 0.0f;
      for (int d = 0; d < Dv; ++d) sum += o[d] * d_o[d];
      di[row] = sum;
    }
  });
}

}  // namespace fa2b::cpu
