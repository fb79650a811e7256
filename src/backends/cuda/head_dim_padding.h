// SPDX-License-Identifier: Apache-2.0
// Head dims that are not a multiple of 8 (D = 59), for kernels whose rows move in 16-byte
// chunks: flash-attention pads such a D to the next multiple of 8 inside its call, and so does
// this wrapper around one of our backends (catalog entry `pads_head_dim`). Its run() copies Q,
// K and V into zero-padded copies (rows of D_8 = ceil(D / 8) * 8 elements), runs the wrapped
// backend on them with the softmax scale of the real D, and copies O's first D columns back;
// run_backward() does the same for dO and dQ, dK, dV. The copies are part of the timed call
// (the user's call pays them too), the padded buffers are tracked, and FLOPs count the real D.
// Cases whose D is a multiple of 8 pass straight through.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace fa2b {

std::unique_ptr<Backend> with_head_dim_padding(std::unique_ptr<Backend> inner);

}  // namespace fa2b
