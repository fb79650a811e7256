// SPDX-License-Identifier: Apache-2.0
// A paged case's pools built the plain way: a logical [B, H_kv, T_k, D] tensor scattered row by
// row into pages through the page table (core/paged_kv.h). The runner fills pools on the
// platform instead (Platform::fill_paged); this is the independent layout the tests check that
// fill against and stage their own paged inputs with.
#pragma once

#include <cstdint>
#include <vector>

#include "core/case.h"
#include "runner/platform.h"

namespace fa2b {

// The pool image [num_pages, page_size, H_kv, D] of a logical tensor described by `logical`:
// row j of (b, h) goes to page table[b * pages_per_seq + j / page_size], row j % page_size.
// The rows past T_k in each sequence's last page are NaN (every byte 0xFF), so a backend that
// reads one shows it in its output.
std::vector<unsigned char> scatter_to_pages(const Case& c, const void* logical,
                                            const TensorDesc& desc,
                                            const std::vector<std::int32_t>& table);

}  // namespace fa2b
