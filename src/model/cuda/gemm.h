// SPDX-License-Identifier: Apache-2.0
// The step's linear layers through cuBLASLt: fp16/bf16 in and out, float32 compute, weights
// [in, out] row-major (y = x W, as model/param_layout.h stores them). One fixed workspace (a
// tracked buffer the caller owns, sized by the plan); one matmul plan (descriptors and the
// heuristic's algorithm) cached per shape, alignment and epilogue.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <tuple>

#include "common/attn_params.h"

namespace fa2b::model::cuda {

class LtGemm {
 public:
  explicit LtGemm(KernelDType dtype);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  void set_stream(cudaStream_t stream, void* workspace, std::size_t workspace_bytes);

  // y[n, out] = x[n, in] w[in, out] (+ bias[out] when set, cuBLASLt's bias epilogue)
  // (+ c[n, out] when set: the residual; c may be y, or another buffer).
  void forward(const void* x, const void* w, const void* bias, const void* c, void* y,
               std::int64_t n, std::int64_t in, std::int64_t out, float alpha = 1.0f);
  // dx[n, in] = alpha * dy[n, out] w^T
  void backward_data(const void* dy, const void* w, void* dx, std::int64_t n, std::int64_t in,
                     std::int64_t out, float alpha = 1.0f);
  // dw[in, out] = alpha * x^T dy (overwritten)
  void backward_weight(const void* x, const void* dy, void* dw, std::int64_t n, std::int64_t in,
                       std::int64_t out, float alpha = 1.0f);

 private:
  // Column-major GEMM D[m, n] = alpha op(A) op(B) + beta C (+ bias[m]).
  struct Shape {
    bool ta, tb;
    std::int64_t m, n, k, lda, ldb, ldc;
    bool bias, accumulate;
    int align_a, align_b, align_c, align_d;  // bytes, up to 256
    auto key() const {
      return std::make_tuple(ta, tb, m, n, k, lda, ldb, ldc, bias, accumulate, align_a, align_b,
                             align_c, align_d);
    }
    bool operator<(const Shape& o) const { return key() < o.key(); }
  };
  struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algo{};
  };
  void run(Shape s, const void* a, const void* b, const void* c, void* d, const void* bias,
           float alpha);
  Plan& plan(const Shape& s);

  KernelDType dtype_;
  cublasLtHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  std::map<Shape, Plan> plans_;
};

}  // namespace fa2b::model::cuda
