// SPDX-License-Identifier: Apache-2.0
#include "runner/paged_staging.h"

#include <cstring>

#include "core/paged_kv.h"

namespace fa2b {

std::vector<unsigned char> scatter_to_pages(const Case& c, const void* logical,
                                            const TensorDesc& desc,
                                            const std::vector<std::int32_t>& table) {
  const std::int64_t elem = dtype_bytes(c.dtype);
  const std::int64_t row_bytes = c.D * elem;
  const std::int64_t pages = pages_per_seq(c);
  std::vector<unsigned char> pool(static_cast<std::size_t>(page_pool_bytes(c)), 0xFF);
  const auto* src = static_cast<const unsigned char*>(logical);
  for (std::int64_t b = 0; b < c.B; ++b) {
    for (std::int64_t j = 0; j < c.T_k; ++j) {
      const std::int64_t page = table[static_cast<std::size_t>(b * pages + j / c.page_size)];
      const std::int64_t slot = page * c.page_size + j % c.page_size;
      for (std::int64_t h = 0; h < c.H_kv; ++h) {
        const std::int64_t from = b * desc.strides.b + h * desc.strides.h + j * desc.strides.t;
        const std::int64_t to = (slot * c.H_kv + h) * c.D;
        std::memcpy(pool.data() + to * elem, src + from * elem,
                    static_cast<std::size_t>(row_bytes));
      }
    }
  }
  return pool;
}

}  // namespace fa2b
