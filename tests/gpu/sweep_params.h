// SPDX-License-Identifier: Apache-2.0
// The (dtype, head dim) parameters of the GPU kernel sweeps, their test names, and the lists
// each kernel family is swept over: one place for the forward, backward and decode tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/head_dims.h"
#include "core/case.h"

namespace fa2b {
namespace sweep_params {

struct DtypeDim {
  DType dtype;
  int D;
};

inline std::string sweep_name(const ::testing::TestParamInfo<DtypeDim>& info) {
  return std::string(to_string(info.param.dtype)) + "_d" + std::to_string(info.param.D);
}

// Every (dtype, D) of a kernel family's head-dim list (a HeadDimList, e.g. Fa2HeadDims in
// common/head_dims.h: the one list its dispatch and instantiations come from).
template <typename HeadDims>
std::vector<DtypeDim> dtype_dims_of() {
  std::vector<DtypeDim> out;
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (int D : HeadDims::kValues) out.push_back({dt, D});
  }
  return out;
}

inline std::vector<DtypeDim> fa2_dtype_dims() {
  return dtype_dims_of<Fa2HeadDims>();
}

// Head dims that are multiples of 8 but not of 32 (issue 20: naive takes every one up to 256).
inline std::vector<DtypeDim> multiple_of_8_dtype_dims() {
  std::vector<DtypeDim> out;
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (int D : {8, 40, 80, 112, 200}) out.push_back({dt, D});
  }
  return out;
}

// Every (dtype, D) the naive and standard backends are tested at.
inline std::vector<DtypeDim> all_dtype_dims() {
  std::vector<DtypeDim> out;
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (int D = 32; D <= 256; D += 32) out.push_back({dt, D});
  }
  return out;
}

}  // namespace sweep_params
}  // namespace fa2b
