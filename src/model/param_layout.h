// SPDX-License-Identifier: Apache-2.0
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

// The parameter groups whose gradients are allocated one at a time in the backward
// (core/model_plan.cpp's gradient schedule), in buffer order: the embedding, each block, the
// final LayerNorm, the LM head. Each is a contiguous range of the flat layout.
struct ParamGroup {
  std::string name;
  std::int64_t offset = 0, count = 0;
};
std::vector<ParamGroup> param_groups(const ParamLayout& lay);
// Index into param_groups() of the group holding flat element `offset`.
std::size_t param_group_of(const std::vector<ParamGroup>& groups, std::int64_t offset);

// LayerNorm gains start at 1; every other rows == 1 tensor (biases, LayerNorm betas) at 0;
// matrices (rows > 1: linear and embedding weights) from N(0, init_std).
bool is_layer_norm_gain(const ParamTensor& t);

// The host step's starting point: the weights as above from a std::mt19937_64 seeded with `seed`
// (GPT-2's std is 0.02), `w` holding lay.total floats; and initial_tokens(). The CUDA step draws
// its weights on the device instead (its own generator, same distribution) and takes the same
// tokens; tests that compare the two copy the host's weights over.
void initial_state(const ModelCase& m, const ParamLayout& lay, std::uint64_t seed, float init_std,
                   float* w, std::int32_t* tokens);
// m.tokens() tokens uniform in [0, vocab), from their own generator seeded by `seed`.
void initial_tokens(const ModelCase& m, std::uint64_t seed, std::int32_t* tokens);

}  // namespace fa2b::model
