// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cudnn/sdpa_bwd_rules.h"

#include <fmt/format.h>

namespace fa2b {
namespace {

std::string version_text(std::int64_t v) {
  return fmt::format("{}.{}.{}", v / 10000, v % 10000 / 100, v % 100);
}

}  // namespace

std::int64_t sdpa_bwd_aux_bytes(std::int64_t B, std::int64_t H, std::int64_t T_q, std::int64_t D) {
  return 4 * B * H * T_q * (D + 1);
}

std::int64_t sdpa_bwd_row_sums_offset(std::int64_t B, std::int64_t H, std::int64_t T_q,
                                      std::int64_t D) {
  return 4 * B * H * T_q * D;
}

std::string sdpa_bwd_refusal(const Case& c, int cc_major, std::int64_t cudnn_version) {
  // Versions: before 9.6 the dQ accumulator had to be zeroed by the caller and the
  // bottom-right mask needed lengths that are multiples of 64; 9.10.0 and 9.10.1 have known
  // backward bugs; up to 9.15.0 cudnn-frontend hides a bug behind a padding mask this backend
  // does not build when T_k is not a multiple of 128.
  if (cudnn_version < 90600) {
    return fmt::format("cuDNN {}: the SDPA backward here needs cuDNN 9.6.0 or newer",
                       version_text(cudnn_version));
  }
  if (cudnn_version == 91000 || cudnn_version == 91001) {
    return fmt::format(
        "cuDNN {}: its SDPA backward has known bugs (cudnn-frontend refuses 9.10.0 and 9.10.1)",
        version_text(cudnn_version));
  }
  if (cudnn_version <= 91500 && c.T_k % 128 != 0) {
    return fmt::format(
        "cuDNN {} with T_k not a multiple of 128: cudnn-frontend adds a padding mask there to "
        "work around a bug of cuDNN <= 9.15.0, which this backend does not build",
        version_text(cudnn_version));
  }
  if (c.T_q == 1 && c.T_k == 1) {
    return "T_q = T_k = 1 is not supported by cuDNN's SDPA backward (cudnn-frontend refuses it)";
  }
  // Head dims (d_qk = d_v = D here).
  if (cc_major == 9) {
    if (c.D % 8 != 0 || c.D > 256) {
      return fmt::format(
          "D={}: cuDNN's SDPA backward on Hopper takes head dims that are multiples of 8 up to 256",
          c.D);
    }
  } else if (c.D % 8 != 0 || c.D > 128) {
    return fmt::format(
        "D={}: cuDNN's SDPA backward on compute capability {}.x takes head dims that are "
        "multiples of 8 up to 128",
        c.D, cc_major);
  }
  return {};
}

}  // namespace fa2b
