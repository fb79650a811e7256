// SPDX-License-Identifier: Apache-2.0
#include "core/model_case.h"

#include <fmt/format.h>

namespace fa2b {

std::string_view to_string(Optimizer o) {
  return o == Optimizer::adamw ? "adamw" : "none";
}

std::optional<Optimizer> parse_optimizer(std::string_view s) {
  if (s == "adamw") return Optimizer::adamw;
  if (s == "none") return Optimizer::none;
  return std::nullopt;
}

Case ModelCase::attention_case() const {
  Case c;
  c.sweep = sweep;
  c.backend = backend;
  c.role = role;
  c.B = B;
  c.H = heads;
  c.H_kv = H_kv;
  c.T_q = c.T_k = T;
  c.D = head_dim();
  c.dtype = dtype;
  c.causal = true;
  c.layout = Layout::bshd;
  c.mode = Mode::fwd_bwd;
  c.measure = measure;
  return c;
}

std::string ModelCase::shape_key() const {
  std::string s = fmt::format("L{}-h{}-nh{}", layers, hidden, heads);
  if (H_kv != heads) s += fmt::format("-kv{}", H_kv);
  if (mlp_ratio != 4) s += fmt::format("-r{}", mlp_ratio);
  s += fmt::format("-V{}-B{}-T{}/{}/{}", vocab, B, T, to_string(dtype), to_string(optimizer));
  if (recompute) s += "/recompute";
  return s;
}

std::string ModelCase::id() const {
  return fmt::format("{}/{}", backend, shape_key());
}

}  // namespace fa2b
