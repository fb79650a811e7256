// SPDX-License-Identifier: Apache-2.0
// standard: what PyTorch's MATH backend does, done well. S = scale * Q K^T (cuBLAS, float32
// out), one masked softmax kernel writing P (input dtype) and LSE, then O = P V (cuBLAS).
// S, P and cuBLAS's workspace are tracked allocations, so peak == predicted exactly.
#include <cublas_v2.h>
#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/device_varlen.h"
#include "core/shape_algebra.h"
#include "runtime/cuda/cuda_check.h"
#include "standard/standard_bwd.h"
#include "standard/standard_softmax.h"

namespace fa2b {
namespace {

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(fmt::format("{}: {}", what, cublasGetStatusString(s)));
  }
}

struct Gemm {  // one strided-batched GEMM in cuBLAS's column-major terms
  cublasOperation_t ta, tb;
  int m, n, k;
  const void* a;
  cudaDataType_t at;
  int lda;
  long long sa;
  const void* b;
  cudaDataType_t bt;
  int ldb;
  long long sb;
  void* c;
  cudaDataType_t ct;
  int ldc;
  long long sc;
  int batch;
  float alpha;
};

void run_gemm(cublasHandle_t h, const Gemm& g) {
  const float beta = 0.0f;
  check(cublasGemmStridedBatchedEx(h, g.ta, g.tb, g.m, g.n, g.k, &g.alpha, g.a, g.at, g.lda, g.sa,
                                   g.b, g.bt, g.ldb, g.sb, &beta, g.c, g.ct, g.ldc, g.sc, g.batch,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
}

const char* at(const void* base, std::int64_t elems, int esize) {
  return static_cast<const char*>(base) + elems * esize;
}

class StandardCudaBackend final : public Backend {
 public:
  ~StandardCudaBackend() override {
    release();
    if (handle_ != nullptr) (void)cublasDestroy(handle_);
  }

  std::string_view name() const override { return "standard"; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    Support s = our_kernel_support(c, t, name());
    if (!s.ok) return s;
    s = no_window_support(c, name(),
                          "its softmax kernels (kernels/standard) apply the causal bound only");
    if (!s.ok) return s;
    // cuBLAS takes m, n, k, leading dimensions and batch counts as 32-bit ints.
    constexpr std::int64_t kIntMax = 2147483647;
    const Strides q = tensor_strides(c.layout, c.H, c.T_q, c.D);
    const Strides kv = tensor_strides(c.layout, c.H_kv, c.T_k, c.D);
    if (q.t > kIntMax || kv.t > kIntMax || c.B * c.H > kIntMax) {
      return Support::no("a leading dimension or batch count exceeds cuBLAS's 32-bit ints");
    }
    if (!runs_backward(c.mode)) return s;
    std::string why;
    AttnBwdParams b;
    b.fwd = shape_params(c);
    if (!standard_bwd_supported(b, &why)) return Support::no(why);
    return s;
  }

  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    if (handle_ == nullptr) check(cublasCreate(&handle_), "cublasCreate");
    const std::int64_t scores = c.B * c.H * c.T_q * c.T_k;
    S_ = TrackedBuffer(tracker, static_cast<std::size_t>(scores * 4), "standard S (float32)");
    P_ = TrackedBuffer(tracker, static_cast<std::size_t>(scores * dtype_bytes(c.dtype)),
                       "standard P");
    ws_ = TrackedBuffer(tracker, static_cast<std::size_t>(kStandardCublasWorkspaceBytes),
                        "cuBLAS workspace");
    if (runs_backward(c.mode)) {
      bwd_ws_ = TrackedBuffer(tracker, standard_bwd_workspace_bytes(p), "standard dP and dS");
    }
    varlen_.prepare(c, tracker);  // padded only (the catalog): the lengths masking the keys
    stream_set_ = false;          // run() hands cuBLAS the new workspace
  }

  void run(const AttnParams& p, void* stream) override {
    if (!stream_set_ || stream != stream_) {
      // cublasSetStream resets the workspace to cuBLAS's own pool: set ours after it.
      check(cublasSetStream(handle_, static_cast<cudaStream_t>(stream)), "cublasSetStream");
      check(cublasSetWorkspace(handle_, ws_.get(), ws_.bytes()), "cublasSetWorkspace");
      stream_ = stream;
      stream_set_ = true;
    }
    const cudaDataType_t io = p.dtype == KernelDType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
    const int es = 2;
    const int G = p.H / p.H_kv;
    const long long tile = static_cast<long long>(p.T_q) * p.T_k;  // one (b, h) of S or P
    // Batches cuBLAS can stride through: all B*H heads when batch strides are uniform (bhsd,
    // no GQA); else per batch (G == 1) or per (batch, kv head) with K/V broadcast (GQA).
    const bool flat = G == 1 && p.q_batch_stride == p.H * p.q_head_stride &&
                      p.k_batch_stride == p.H * p.k_head_stride &&
                      p.v_batch_stride == p.H * p.v_head_stride &&
                      p.o_batch_stride == p.H * p.o_head_stride;
    const int outer_b = flat ? 1 : p.B;
    const int outer_h = flat || G == 1 ? 1 : p.H_kv;
    const int batch = flat ? p.B * p.H : (G == 1 ? p.H : G);
    const long long kv_stride = G == 1 ? p.k_head_stride : 0;
    const long long v_stride = G == 1 ? p.v_head_stride : 0;
    float* S = S_.as<float>();

    // S^T (T_k x T_q, column-major, ld T_k) = K (D x T_k)^T * Q (D x T_q), times scale.
    for (int b = 0; b < outer_b; ++b) {
      for (int hk = 0; hk < outer_h; ++hk) {
        const std::int64_t h0 = static_cast<std::int64_t>(hk) * G;  // first query head
        Gemm g{};
        g.ta = CUBLAS_OP_T;
        g.tb = CUBLAS_OP_N;
        g.m = p.T_k;
        g.n = p.T_q;
        g.k = p.D;
        g.a = at(p.k, b * p.k_batch_stride + hk * p.k_head_stride, es);
        g.at = io;
        g.lda = static_cast<int>(p.k_row_stride);
        g.sa = kv_stride;
        g.b = at(p.q, b * p.q_batch_stride + h0 * p.q_head_stride, es);
        g.bt = io;
        g.ldb = static_cast<int>(p.q_row_stride);
        g.sb = p.q_head_stride;
        g.c = S + (static_cast<std::int64_t>(b) * p.H + h0) * tile;
        g.ct = CUDA_R_32F;
        g.ldc = p.T_k;
        g.sc = tile;
        g.batch = batch;
        g.alpha = p.scale;
        run_gemm(handle_, g);
      }
    }
    FA2B_CUDA_CHECK(
        standard_softmax(varlen_.apply(p), S, P_.get(), static_cast<cudaStream_t>(stream)));
    // O^T (D x T_q, ld o_row) = V^T (D x T_k, ld v_row) * P^T (T_k x T_q, ld T_k).
    for (int b = 0; b < outer_b; ++b) {
      for (int hk = 0; hk < outer_h; ++hk) {
        const std::int64_t h0 = static_cast<std::int64_t>(hk) * G;
        Gemm g{};
        g.ta = CUBLAS_OP_N;
        g.tb = CUBLAS_OP_N;
        g.m = p.D;
        g.n = p.T_q;
        g.k = p.T_k;
        g.a = at(p.v, b * p.v_batch_stride + hk * p.v_head_stride, es);
        g.at = io;
        g.lda = static_cast<int>(p.v_row_stride);
        g.sa = v_stride;
        g.b = at(P_.get(), (static_cast<std::int64_t>(b) * p.H + h0) * tile, es);
        g.bt = io;
        g.ldb = p.T_k;
        g.sb = tile;
        g.c = const_cast<char*>(at(p.o, b * p.o_batch_stride + h0 * p.o_head_stride, es));
        g.ct = io;
        g.ldc = static_cast<int>(p.o_row_stride);
        g.sc = p.o_head_stride;
        g.batch = batch;
        g.alpha = 1.0f;
        run_gemm(handle_, g);
      }
    }
  }

  // Reads the P the last run() left; run() set the handle's stream and workspace.
  void run_backward(const AttnBwdParams& p, void*) override {
    const StandardStatus st = standard_attention_bwd(p, P_.get(), bwd_ws_.get(), handle_);
    if (!st.ok()) {
      throw std::runtime_error(
          fmt::format("standard backward, {}: {}", st.step != nullptr ? st.step : "?",
                      st.cublas != CUBLAS_STATUS_SUCCESS ? cublasGetStatusString(st.cublas)
                                                         : cudaGetErrorString(st.cuda)));
    }
  }

  void release() override {
    bwd_ws_.reset();
    S_.reset();
    P_.reset();
    ws_.reset();
    varlen_.reset();
    stream_set_ = false;
  }

 private:
  cublasHandle_t handle_ = nullptr;
  TrackedBuffer S_, P_, ws_, bwd_ws_;
  DeviceVarlenArrays varlen_;
  void* stream_ = nullptr;
  bool stream_set_ = false;
};

}  // namespace

std::unique_ptr<Backend> make_standard_cuda_backend() {
  return std::make_unique<StandardCudaBackend>();
}

}  // namespace fa2b
