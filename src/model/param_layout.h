// Where each parameter tensor lives in the model's one flat parameter buffer (and, at the same
// offsets, in the gradient and AdamW buffers). Weights are [in, out] row-major: y = x W.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model_case.h"

namespace fa2b::model {

struct ParamTensor {
  std::string name;  // e.g. "block1.w_qkv"
  std::int64_t offset = 0, rows = 0, cols = 0;
  std::int64_t count() const { return rows * cols; }
};

struct BlockParams {
  std::int64_t ln1_g, ln1_b, w_qkv, b_qkv, w_o, b_o, ln2_g, ln2_b, w_up, b_up, w_down, b_down;
};

struct ParamLayout {
  std::int64_t embedding = 0, lnf_g = 0, lnf_b = 0, head = 0;  // offsets
  std::vector<BlockParams> blocks;
  std::vector<ParamTensor> tensors;  // every tensor in buffer order
  std::int64_t total = 0;            // elements; equals model_params(m).total
};

ParamLayout param_layout(const ModelCase& m);

}  // namespace fa2b::model
