// SPDX-License-Identifier: Apache-2.0
#include "core/paged_kv.h"

#include <numeric>
#include <utility>

namespace fa2b {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::int64_t pages_per_seq(const Case& c) {
  if (!c.paged() || c.page_size <= 0) return 0;
  return (c.T_k + c.page_size - 1) / c.page_size;
}

std::int64_t num_pages(const Case& c) {
  return c.B * pages_per_seq(c);
}

std::int64_t page_pool_bytes(const Case& c) {
  return num_pages(c) * c.page_size * c.H_kv * c.D * dtype_bytes(c.dtype);
}

std::int64_t page_table_bytes(const Case& c) {
  return num_pages(c) * 4;
}

std::vector<std::int32_t> page_table(const Case& c) {
  std::vector<std::int32_t> table(static_cast<std::size_t>(num_pages(c)));
  std::iota(table.begin(), table.end(), 0);
  // A stream of its own: the inputs' generator hashes the same seed with other tags.
  std::uint64_t state = c.measure.seed ^ 0x7061676564ull;  // "paged"
  for (std::size_t i = table.size(); i > 1; --i) {
    // Modulo's bias is below i / 2^64: nothing for a page count.
    const auto r = static_cast<std::size_t>(splitmix64(state) % i);
    std::swap(table[i - 1], table[r]);
  }
  return table;
}

}  // namespace fa2b
