// SPDX-License-Identifier: Apache-2.0
#include "model/cuda/gemm.h"

#include <fmt/format.h>

#include <stdexcept>

namespace fa2b::model::cuda {
namespace {

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("{}: {}", what, cublasLtGetStatusString(s)));
}

int alignment(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  int bytes = 256;
  while (bytes > 1 && a % static_cast<std::uintptr_t>(bytes) != 0) bytes /= 2;
  return bytes;
}

}  // namespace

LtGemm::LtGemm(KernelDType dtype) : dtype_(dtype) {
  check(cublasLtCreate(&handle_), "cublasLtCreate");
}

LtGemm::~LtGemm() {
  for (auto& [shape, p] : plans_) {
    (void)cublasLtMatrixLayoutDestroy(p.a);
    (void)cublasLtMatrixLayoutDestroy(p.b);
    (void)cublasLtMatrixLayoutDestroy(p.c);
    (void)cublasLtMatmulDescDestroy(p.desc);
  }
  if (handle_ != nullptr) (void)cublasLtDestroy(handle_);
}

void LtGemm::set_stream(cudaStream_t stream, void* workspace, std::size_t workspace_bytes) {
  stream_ = stream;
  workspace_ = workspace;
  workspace_bytes_ = workspace_bytes;
}

LtGemm::Plan& LtGemm::plan(const Shape& s) {
  auto it = plans_.find(s);
  if (it != plans_.end()) return it->second;
  const cudaDataType_t t = dtype_ == KernelDType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  Plan p;
  check(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
        "cublasLtMatmulDescCreate");
  const cublasOperation_t ta = s.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = s.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)),
        "cublasLtMatmulDescSetAttribute(TRANSA)");
  check(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)),
        "cublasLtMatmulDescSetAttribute(TRANSB)");
  if (s.bias) {
    const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    check(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)),
          "cublasLtMatmulDescSetAttribute(EPILOGUE)");
    check(
        cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &t, sizeof(t)),
        "cublasLtMatmulDescSetAttribute(BIAS_DATA_TYPE)");
  }
  // Stored (before op) shapes: A is m x k (k x m transposed), B k x n (n x k), C and D m x n.
  check(cublasLtMatrixLayoutCreate(&p.a, t, static_cast<std::uint64_t>(s.ta ? s.k : s.m),
                                   static_cast<std::uint64_t>(s.ta ? s.m : s.k), s.lda),
        "cublasLtMatrixLayoutCreate(A)");
  check(cublasLtMatrixLayoutCreate(&p.b, t, static_cast<std::uint64_t>(s.tb ? s.n : s.k),
                                   static_cast<std::uint64_t>(s.tb ? s.k : s.n), s.ldb),
        "cublasLtMatrixLayoutCreate(B)");
  check(cublasLtMatrixLayoutCreate(&p.c, t, static_cast<std::uint64_t>(s.m),
                                   static_cast<std::uint64_t>(s.n), s.ldc),
        "cublasLtMatrixLayoutCreate(C)");

  cublasLtMatmulPreference_t pref = nullptr;
  check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t ws = workspace_bytes_;
  const std::uint32_t aa = static_cast<std::uint32_t>(s.align_a),
                      ab = static_cast<std::uint32_t>(s.align_b),
                      ac = static_cast<std::uint32_t>(s.align_c),
                      ad = static_cast<std::uint32_t>(s.align_d);
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &aa,
                                              sizeof(aa));
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &ab,
                                              sizeof(ab));
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &ac,
                                              sizeof(ac));
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &ad,
                                              sizeof(ad));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(handle_, p.desc, p.a, p.b, p.c, p.c, pref, 1, &result,
                                        &found);
  (void)cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
    (void)cublasLtMatrixLayoutDestroy(p.a);
    (void)cublasLtMatrixLayoutDestroy(p.b);
    (void)cublasLtMatrixLayoutDestroy(p.c);
    (void)cublasLtMatmulDescDestroy(p.desc);
    throw std::runtime_error(fmt::format(
        "cuBLASLt has no algorithm for {}{} m={} n={} k={} lda={} ldb={} ldc={}{}: {}",
        s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', s.m, s.n, s.k, s.lda, s.ldb, s.ldc,
        s.bias ? " with bias" : "",
        st != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusString(st) : "no heuristic result"));
  }
  p.algo = result.algo;
  return plans_.emplace(s, p).first->second;
}

void LtGemm::run(Shape s, const void* a, const void* b, const void* c, void* d, const void* bias,
                 float alpha) {
  s.bias = bias != nullptr;
  s.accumulate = c != nullptr;
  s.align_a = alignment(a);
  s.align_b = alignment(b);
  s.align_c = alignment(c != nullptr ? c : d);
  s.align_d = alignment(d);
  Plan& p = plan(s);
  if (bias != nullptr) {
    check(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                         sizeof(bias)),
          "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
  }
  const float beta = c != nullptr ? 1.0f : 0.0f;
  check(cublasLtMatmul(handle_, p.desc, &alpha, a, p.a, b, p.b, &beta, c != nullptr ? c : d, p.c, d,
                       p.c, &p.algo, workspace_, workspace_bytes_, stream_),
        "cublasLtMatmul");
}

// Row-major [r, c] is column-major [c, r] with leading dimension c: every product below is
// the transposed one in cuBLASLt's column-major terms.
void LtGemm::forward(const void* x, const void* w, const void* bias, const void* c, void* y,
                     std::int64_t n, std::int64_t in, std::int64_t out, float alpha) {
  // y^T[out, n] = w^T[out, in] x^T[in, n]: A = w (stored out x in, ld out), B = x (in x n).
  run({false, false, out, n, in, out, in, out, false, false, 0, 0, 0, 0}, w, x, c, y, bias, alpha);
}

void LtGemm::backward_data(const void* dy, const void* w, void* dx, std::int64_t n, std::int64_t in,
                           std::int64_t out, float alpha) {
  // dx^T[in, n] = w[in, out] dy^T[out, n]: A = w stored out x in (ld out), transposed.
  run({true, false, in, n, out, out, out, in, false, false, 0, 0, 0, 0}, w, dy, nullptr, dx,
      nullptr, alpha);
}

void LtGemm::backward_weight(const void* x, const void* dy, void* dw, std::int64_t n,
                             std::int64_t in, std::int64_t out, float alpha) {
  // dw^T[out, in] = dy^T[out, n] x[n, in]: A = dy stored out x n (ld out), B = x stored in x n
  // (ld in), transposed.
  run({false, true, out, in, n, out, in, out, false, false, 0, 0, 0, 0}, dy, x, nullptr, dw,
      nullptr, alpha);
}

}  // namespace fa2b::model::cuda
