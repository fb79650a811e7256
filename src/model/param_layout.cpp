// SPDX-License-Identifier: Apache-2.0
#include "model/param_layout.h"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace fa2b::model {

ParamLayout param_layout(const ModelCase& m) {
  ParamLayout p;
  const std::int64_t h = m.hidden, w = m.qkv_width(), f = m.mlp_hidden();
  auto add = [&](const std::string& name, std::int64_t rows, std::int64_t cols) {
    p.tensors.push_back({name, p.total, rows, cols});
    p.total += rows * cols;
    return p.tensors.back().offset;
  };
  p.embedding = add("embedding", m.vocab, h);
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const std::string b = "block" + std::to_string(l) + ".";
    BlockParams bp;
    bp.ln1_g = add(b + "ln1_g", 1, h);
    bp.ln1_b = add(b + "ln1_b", 1, h);
    bp.w_qkv = add(b + "w_qkv", h, w);
    bp.b_qkv = add(b + "b_qkv", 1, w);
    bp.w_o = add(b + "w_o", h, h);
    bp.b_o = add(b + "b_o", 1, h);
    bp.ln2_g = add(b + "ln2_g", 1, h);
    bp.ln2_b = add(b + "ln2_b", 1, h);
    bp.w_up = add(b + "w_up", h, f);
    bp.b_up = add(b + "b_up", 1, f);
    bp.w_down = add(b + "w_down", f, h);
    bp.b_down = add(b + "b_down", 1, h);
    p.blocks.push_back(bp);
  }
  p.lnf_g = add("lnf_g", 1, h);
  p.lnf_b = add("lnf_b", 1, h);
  p.head = add("head", h, m.vocab);
  return p;
}

std::vector<ParamGroup> param_groups(const ParamLayout& lay) {
  std::vector<ParamGroup> g;
  const std::int64_t first_block = lay.blocks.empty() ? lay.lnf_g : lay.blocks.front().ln1_g;
  g.push_back({"embedding", lay.embedding, first_block - lay.embedding});
  for (std::size_t l = 0; l < lay.blocks.size(); ++l) {
    const std::int64_t end = l + 1 < lay.blocks.size() ? lay.blocks[l + 1].ln1_g : lay.lnf_g;
    g.push_back({"block" + std::to_string(l), lay.blocks[l].ln1_g, end - lay.blocks[l].ln1_g});
  }
  g.push_back({"final LayerNorm", lay.lnf_g, lay.head - lay.lnf_g});
  g.push_back({"LM head", lay.head, lay.total - lay.head});
  return g;
}

std::size_t param_group_of(const std::vector<ParamGroup>& groups, std::int64_t offset) {
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (offset >= groups[i].offset && offset < groups[i].offset + groups[i].count) return i;
  throw std::out_of_range("parameter offset outside the layout");
}

bool is_layer_norm_gain(const ParamTensor& t) {
  return t.rows == 1 && t.name.size() >= 2 && t.name.compare(t.name.size() - 2, 2, "_g") == 0;
}

void initial_state(const ModelCase& m, const ParamLayout& lay, std::uint64_t seed, float init_std,
                   float* w, std::int32_t* tokens) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, init_std);
  std::fill(w, w + lay.total, 0.0f);
  for (const ParamTensor& t : lay.tensors) {
    if (is_layer_norm_gain(t)) std::fill(w + t.offset, w + t.offset + t.count(), 1.0f);
    if (t.rows > 1)
      for (std::int64_t i = 0; i < t.count(); ++i) w[t.offset + i] = normal(rng);
  }
  initial_tokens(m, seed, tokens);
}

void initial_tokens(const ModelCase& m, std::uint64_t seed, std::int32_t* tokens) {
  std::mt19937_64 rng(seed ^ 0x9E3779B97F4A7C15ull);
  std::uniform_int_distribution<std::int32_t> token(0, static_cast<std::int32_t>(m.vocab - 1));
  for (std::int64_t i = 0; i < m.tokens(); ++i) tokens[i] = token(rng);
}

}  // namespace fa2b::model
