#include "model/param_layout.h"

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

}  // namespace fa2b::model
