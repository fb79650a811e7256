// SPDX-License-Identifier: Apache-2.0
// A transformer training-step case: one decoder-only model (the seed article's) with one
// attention backend inside, one batch. Pure host data, kept apart from the attention Case so
// that the attention path (its ids, selectors, results schema) is untouched by model sweeps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/case.h"

namespace fa2b {

enum class Optimizer { adamw, none };
std::string_view to_string(Optimizer);
std::optional<Optimizer> parse_optimizer(std::string_view);

struct ModelCase {
  std::string sweep;    // name of the sweep that produced the case
  std::string backend;  // attention backend that runs inside (e.g. "cpu-flash")
  std::string role;     // backend named in the config (e.g. "fa2"); equals backend unless mapped
  std::int64_t layers = 1, hidden = 64, heads = 1, H_kv = 1, vocab = 1, mlp_ratio = 4;
  std::int64_t B = 1, T = 1;
  DType dtype = DType::fp32;
  Optimizer optimizer = Optimizer::adamw;
  bool recompute = false;  // activation checkpointing per block: keep only each block's input
  MeasureSettings measure;

  std::int64_t head_dim() const { return hidden / heads; }
  std::int64_t tokens() const { return B * T; }
  // Width of the fused QKV projection's output: hidden query columns, then K and V of H_kv heads.
  std::int64_t qkv_width() const { return hidden + 2 * H_kv * head_dim(); }
  std::int64_t mlp_hidden() const { return mlp_ratio * hidden; }

  // The attention call inside every block: causal, T_q = T_k = T, bshd (the heads of a token are
  // adjacent in the fused projections), mode fwd_bwd, the case's backend.
  Case attention_case() const;

  // Stable identity, e.g. "cpu-flash/L2-h64-nh4-V97-B2-T33/fp32/adamw"; H_kv != heads adds
  // "-kv<H_kv>" to the shape, mlp_ratio != 4 "-r<ratio>", recompute "/recompute".
  std::string id() const;
  std::string shape_key() const;
};

}  // namespace fa2b
