// SPDX-License-Identifier: Apache-2.0
// A paged KV cache's geometry and page table (Case::kv_layout paged): pure host arithmetic,
// shared by the shape algebra, the runner and the tests.
#pragma once

#include <cstdint>
#include <vector>

#include "core/case.h"

namespace fa2b {

// Logical pages of one sequence: ceil(T_k / page_size) (the last one partly used when
// page_size does not divide T_k); 0 for a contiguous case.
std::int64_t pages_per_seq(const Case& c);
// Physical pages in the pool: exactly the B * pages_per_seq pages the batch uses.
std::int64_t num_pages(const Case& c);
// Bytes of one pool (K or V), [num_pages, page_size, H_kv, D] at the input dtype.
std::int64_t page_pool_bytes(const Case& c);
// Bytes of the int32 page table [B, pages_per_seq].
std::int64_t page_table_bytes(const Case& c);

// The page table, row-major [B, pages_per_seq]: entry (b, p) is the physical page holding
// tokens [p * page_size, (p + 1) * page_size) of sequence b. A permutation of 0 .. num_pages-1
// drawn from the case's measure seed (Fisher-Yates over a splitmix64 stream, so every platform
// draws the same one): neighbouring logical pages are scattered over the pool.
std::vector<std::int32_t> page_table(const Case& c);

}  // namespace fa2b
