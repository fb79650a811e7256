// SPDX-License-Identifier: Apache-2.0
// The tiny model of the model-scope tests (issue's correctness model): 2 layers, hidden 64,
// 4 heads, vocab 97, B 2, T 33, fp32, with `backend` as its attention.
#pragma once

#include <string>

#include "core/model_case.h"

namespace fa2b {

inline ModelCase tiny(const std::string& backend) {
  ModelCase m;
  m.backend = m.role = backend;
  m.layers = 2;
  m.hidden = 64;
  m.heads = m.H_kv = 4;
  m.vocab = 97;
  m.B = 2;
  m.T = 33;
  m.dtype = DType::fp32;
  return m;
}

}  // namespace fa2b
