// SPDX-License-Identifier: Apache-2.0
// Small device helpers the runner needs around every kernel: deterministic input fill,
// output poisoning, non-finite counting, and gathering rows for verification.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "common/input_gen.h"

namespace fa2b {

// Fills a [B, heads, seq, D] tensor (element strides as given, last dim contiguous) with
// input_value(seed, tensor, logical index, dist) rounded to `dtype`.
cudaError_t fill_inputs(void* ptr, KernelDType dtype, int B, int heads, int seq, int D,
                        std::int64_t batch_stride, std::int64_t head_stride,
                        std::int64_t row_stride, std::uint64_t seed, InputTensor tensor,
                        KernelInputDist dist, cudaStream_t stream);

// K or V of a paged cache: the values fill_inputs gives the logical [B, heads, seq, D] tensor
// (row-major), written into the pool [pages, page_size, heads, D] through the device page
// table [B, ceil(seq / page_size)] (row j of (b, h) to page table[b][j / page_size], row
// j % page_size). The pool's other rows are left as they are (the caller poisons them first).
cudaError_t fill_paged_inputs(void* pool, KernelDType dtype, int B, int heads, int seq, int D,
                              int page_size, const std::int32_t* table, std::uint64_t seed,
                              InputTensor tensor, KernelInputDist dist, cudaStream_t stream);

// Counts non-finite elements among `n` elements of `dtype` at `ptr`. Synchronous.
cudaError_t count_nonfinite(const void* ptr, KernelDType dtype, std::int64_t n, std::int64_t* count,
                            cudaStream_t stream);

}  // namespace fa2b
