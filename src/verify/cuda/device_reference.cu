// SPDX-License-Identifier: Apache-2.0
// The float64 reference kernels (verify/device_reference.h). Launch shapes: one block of 8
// warps per row (fwd, dq) or key row (dkdv); the warps split the keys (or the query rows of a
// key's group) round-robin, the 32 lanes of a warp split D (ceil(D / 32) doubles per lane in
// registers: N = 1, 2, 4 or 8), dot products are warp sums of doubles, and the 8 warps' partial
// results are combined through shared memory at the end. Every product and sum is in double;
// the inputs are the stored (rounded) elements, widened exactly.
//
//   fwd   online softmax in double per warp (max, sum, O), combined as flash-attention's split
//         softmax is; LSE = M + log L; with dO also D_i = dO . O.
//   dq    needs each row's LSE and D_i (a fwd pass first): dQ = scale sum_j P_ij (dP_ij - D_i) K_j
//         with P_ij = exp(S_ij - LSE_i), dP_ij = dO_i . V_j.
//   dkdv  needs LSE and D_i of every query row of the key's group (a fwd pass over them first):
//         dK_j = scale sum_i P_ij (dP_ij - D_i) Q_i, dV_j = sum_i P_ij dO_i over the rows that
//         see key j.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/numeric.h"
#include "verify/cuda/device_reference_launch.h"

namespace fa2b {
namespace {

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kMaxD = 256;

// The job's scalars and pointers, passed by value to every kernel.
struct Geometry {
  int D;
  double scale;
  std::int64_t k_row_stride;
  bool paged;
  const std::int32_t* table;
  std::int64_t page_size, H_kv;
  const void *q, *k, *v, *o, *d_o, *dq, *dk, *dv;
};

// Element i of a tensor of dtype DT (0 fp16, 1 bf16, 2 fp32), widened exactly to double.
template <int DT>
__device__ __forceinline__ double load(const void* base, std::int64_t i) {
  if constexpr (DT == 2) {
    return static_cast<double>(static_cast<const float*>(base)[i]);
  } else {
    const std::uint16_t h = static_cast<const std::uint16_t*>(base)[i];
    return static_cast<double>(DT == 0 ? fp16_to_float(h) : bf16_to_float(h));
  }
}

template <int DT>
__device__ __forceinline__ float load_float(const void* base, std::int64_t i) {
  return static_cast<float>(load<DT>(base, i));
}

__device__ __forceinline__ double warp_sum(double x) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) x += __shfl_xor_sync(0xffffffffu, x, off);
  return x;
}

// Element offset of key row `key` (0-based within the row's sequence) of the row's KV head.
__device__ __forceinline__ std::int64_t key_offset(const Geometry& g, const RefQueryRow& row,
                                                   std::int64_t key) {
  if (!g.paged) return row.kv_base + key * g.k_row_stride;
  const std::int64_t logical = row.kv_row + key;
  const std::int64_t page = g.table[row.kv_base + logical / g.page_size];
  return (page * g.page_size + logical % g.page_size) * g.H_kv * g.D +
         static_cast<std::int64_t>(row.hk) * g.D;
}

// The 8 warps' per-lane vectors x[N] (d = lane + 32 n) summed over the warps, with weights
// w[warp], into out[d] for d < D (every thread returns; `out` is written by the block).
// `stage` is the block's [kWarps][kMaxD] shared staging area.
template <int N>
__device__ __forceinline__ void stage_lanes(double (*stage)[kMaxD], const double (&x)[N], int D) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int n = 0; n < N; ++n) {
    const int d = lane + 32 * n;
    if (d < D) stage[warp][d] = x[n];
  }
}

// One block per row: O, LSE and (with dO) D_i of rows[r] in double; got[r] the backend's O.
template <int DT, int N>
__global__ void __launch_bounds__(kThreads)
    ref_fwd_kernel(Geometry g, const RefQueryRow* rows, std::int64_t n_rows, double* ref_o,
                   double* lse, double* di, float* got) {
  __shared__ double stage[kWarps][kMaxD];
  __shared__ double s_m[kWarps], s_l[kWarps], s_red[kWarps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int D = g.D;
  for (std::int64_t r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const RefQueryRow row = rows[r];
    double q[N], o[N];
#pragma unroll
    for (int n = 0; n < N; ++n) {
      const int d = lane + 32 * n;
      q[n] = d < D ? load<DT>(g.q, row.q_off + d) : 0.0;
      o[n] = 0.0;
    }
    double m = -std::numeric_limits<double>::infinity(), l = 0.0;
    for (std::int64_t key = row.first + warp; key <= row.last; key += kWarps) {
      const std::int64_t koff = key_offset(g, row, key);
      double s = 0.0;
#pragma unroll
      for (int n = 0; n < N; ++n) {
        const int d = lane + 32 * n;
        if (d < D) s += q[n] * load<DT>(g.k, koff + d);
      }
      s = warp_sum(s) * g.scale;
      const double m_new = m < s ? s : m;  // std::max(m, s), as the host reference
      const double corr = exp(m - m_new), p = exp(s - m_new);
      l = l * corr + p;
#pragma unroll
      for (int n = 0; n < N; ++n) {
        const int d = lane + 32 * n;
        o[n] = o[n] * corr + (d < D ? p * load<DT>(g.v, koff + d) : 0.0);
      }
      m = m_new;
    }
    stage_lanes<N>(stage, o, D);
    if (lane == 0) {
      s_m[warp] = m;
      s_l[warp] = l;
    }
    __syncthreads();
    const bool empty = row.last < row.first;
    double big_m = -std::numeric_limits<double>::infinity(), big_l = 0.0;
    double weight[kWarps];
#pragma unroll
    for (int w = 0; w < kWarps; ++w) big_m = big_m < s_m[w] ? s_m[w] : big_m;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      weight[w] = s_l[w] > 0.0 ? exp(s_m[w] - big_m) : 0.0;
      big_l += s_l[w] * weight[w];
    }
    double di_part = 0.0;
    for (int d = threadIdx.x; d < D; d += kThreads) {
      double od = 0.0;
      if (!empty) {
#pragma unroll
        for (int w = 0; w < kWarps; ++w) od += stage[w][d] * weight[w];
        od /= big_l;
      }
      ref_o[r * D + d] = od;
      if (got) got[r * D + d] = load_float<DT>(g.o, row.q_off + d);
      if (di) di_part += load<DT>(g.d_o, row.q_off + d) * od;
    }
    if (di) {
      di_part = warp_sum(di_part);
      if (lane == 0) s_red[warp] = di_part;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      lse[r] = empty ? -std::numeric_limits<double>::infinity() : big_m + log(big_l);
      if (di) {
        double sum = 0.0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += s_red[w];
        di[r] = empty ? 0.0 : sum;
      }
    }
    __syncthreads();  // stage and s_* are reused by the next row
  }
}

// One block per row: dQ of rows[r] in double from the rows' LSE and D_i; got[r] the backend's dQ.
template <int DT, int N>
__global__ void __launch_bounds__(kThreads)
    ref_dq_kernel(Geometry g, const RefQueryRow* rows, std::int64_t n_rows, const double* lse,
                  const double* di, double* ref, float* got) {
  __shared__ double stage[kWarps][kMaxD];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int D = g.D;
  for (std::int64_t r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const RefQueryRow row = rows[r];
    const double row_lse = lse[r], row_di = di[r];
    double q[N], d_o[N], acc[N];
#pragma unroll
    for (int n = 0; n < N; ++n) {
      const int d = lane + 32 * n;
      q[n] = d < D ? load<DT>(g.q, row.q_off + d) : 0.0;
      d_o[n] = d < D ? load<DT>(g.d_o, row.q_off + d) : 0.0;
      acc[n] = 0.0;
    }
    for (std::int64_t key = row.first + warp; key <= row.last; key += kWarps) {
      const std::int64_t koff = key_offset(g, row, key);
      double k[N], s = 0.0, dp = 0.0;
#pragma unroll
      for (int n = 0; n < N; ++n) {
        const int d = lane + 32 * n;
        k[n] = d < D ? load<DT>(g.k, koff + d) : 0.0;
        s += q[n] * k[n];
        dp += d < D ? d_o[n] * load<DT>(g.v, koff + d) : 0.0;
      }
      s = warp_sum(s) * g.scale;
      dp = warp_sum(dp);
      const double p = exp(s - row_lse);
      const double ds = p * (dp - row_di);
#pragma unroll
      for (int n = 0; n < N; ++n) acc[n] += g.scale * ds * k[n];
    }
    stage_lanes<N>(stage, acc, D);
    __syncthreads();
    for (int d = threadIdx.x; d < D; d += kThreads) {
      double sum = 0.0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) sum += stage[w][d];
      ref[r * D + d] = sum;
      got[r * D + d] = load_float<DT>(g.dq, row.q_off + d);
    }
    __syncthreads();
  }
}

// One block per key row: dK and dV of keys[x] in double over the query rows of its group that
// see it, from those rows' LSE and D_i; got/got2 the backend's dK/dV.
template <int DT, int N>
__global__ void __launch_bounds__(kThreads)
    ref_dkdv_kernel(Geometry g, const RefKeyRow* keys, std::int64_t n_keys, const RefQueryRow* rows,
                    const double* lse, const double* di, double* ref_dk, double* ref_dv,
                    float* got_dk, float* got_dv) {
  __shared__ double stage[kWarps][kMaxD];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int D = g.D;
  for (std::int64_t x = blockIdx.x; x < n_keys; x += gridDim.x) {
    const RefKeyRow key = keys[x];
    double k[N], v[N], dk[N], dv[N];
#pragma unroll
    for (int n = 0; n < N; ++n) {
      const int d = lane + 32 * n;
      k[n] = d < D ? load<DT>(g.k, key.k_off + d) : 0.0;
      v[n] = d < D ? load<DT>(g.v, key.k_off + d) : 0.0;
      dk[n] = dv[n] = 0.0;
    }
    for (std::int64_t i = key.seg_begin + warp; i < key.seg_end; i += kWarps) {
      const RefQueryRow row = rows[i];
      if (key.j < row.first || key.j > row.last) continue;  // warp-uniform
      double q[N], d_o[N], s = 0.0, dp = 0.0;
#pragma unroll
      for (int n = 0; n < N; ++n) {
        const int d = lane + 32 * n;
        q[n] = d < D ? load<DT>(g.q, row.q_off + d) : 0.0;
        d_o[n] = d < D ? load<DT>(g.d_o, row.q_off + d) : 0.0;
        s += q[n] * k[n];
        dp += d_o[n] * v[n];
      }
      s = warp_sum(s) * g.scale;
      dp = warp_sum(dp);
      const double p = exp(s - lse[i]);
      const double ds = p * (dp - di[i]);
#pragma unroll
      for (int n = 0; n < N; ++n) {
        dk[n] += g.scale * ds * q[n];
        dv[n] += p * d_o[n];
      }
    }
    stage_lanes<N>(stage, dk, D);
    __syncthreads();
    for (int d = threadIdx.x; d < D; d += kThreads) {
      double sum = 0.0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) sum += stage[w][d];
      ref_dk[x * D + d] = sum;
      got_dk[x * D + d] = load_float<DT>(g.dk, key.k_off + d);
    }
    __syncthreads();
    stage_lanes<N>(stage, dv, D);
    __syncthreads();
    for (int d = threadIdx.x; d < D; d += kThreads) {
      double sum = 0.0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) sum += stage[w][d];
      ref_dv[x * D + d] = sum;
      got_dv[x * D + d] = load_float<DT>(g.dv, key.k_off + d);
    }
    __syncthreads();
  }
}

// Device scratch freed on every path out.
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    for (void* p : ptrs_) (void)cudaFree(p);
  }
  template <typename T>
  cudaError_t alloc(T** out, std::size_t count) {
    *out = nullptr;
    if (count == 0) return cudaSuccess;
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, count * sizeof(T));
    if (err != cudaSuccess) return err;
    ptrs_[n_++] = p;
    *out = static_cast<T*>(p);
    return cudaSuccess;
  }

 private:
  void* ptrs_[16] = {};
  int n_ = 0;
};

#define FA2B_REF_TRY(expr)                \
  do {                                    \
    const cudaError_t err_ = (expr);      \
    if (err_ != cudaSuccess) return err_; \
  } while (0)

unsigned grid_for(std::int64_t n) {
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(n, 1 << 20)));
}

template <typename T>
cudaError_t upload(Scratch& s, const std::vector<T>& host, T** dev, cudaStream_t stream) {
  FA2B_REF_TRY(s.alloc(dev, host.size()));
  if (host.empty()) return cudaSuccess;
  return cudaMemcpyAsync(*dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice,
                         stream);
}

template <typename T>
cudaError_t download(std::vector<T>& host, const T* dev, std::size_t count, cudaStream_t stream) {
  host.resize(count);
  if (count == 0) return cudaSuccess;
  return cudaMemcpyAsync(host.data(), dev, count * sizeof(T), cudaMemcpyDeviceToHost, stream);
}

template <int DT, int N>
cudaError_t run_typed(const RefJob& job, const Geometry& g, RefJobOut& out, cudaStream_t stream) {
  Scratch s;
  const auto n_rows = static_cast<std::int64_t>(job.rows.size());
  const auto n_keys = static_cast<std::int64_t>(job.keys.size());
  const auto D = static_cast<std::size_t>(job.D);
  RefQueryRow* rows = nullptr;
  FA2B_REF_TRY(upload(s, job.rows, &rows, stream));
  double *ref_o = nullptr, *lse = nullptr, *di = nullptr;
  FA2B_REF_TRY(s.alloc(&ref_o, job.rows.size() * D));
  FA2B_REF_TRY(s.alloc(&lse, job.rows.size()));
  const bool backward = job.kind != RefKind::fwd;
  if (backward) FA2B_REF_TRY(s.alloc(&di, job.rows.size()));
  float* got = nullptr;
  if (job.kind == RefKind::fwd) FA2B_REF_TRY(s.alloc(&got, job.rows.size() * D));
  if (n_rows > 0) {
    ref_fwd_kernel<DT, N>
        <<<grid_for(n_rows), kThreads, 0, stream>>>(g, rows, n_rows, ref_o, lse, di, got);
    FA2B_REF_TRY(cudaGetLastError());
  }
  if (job.kind == RefKind::fwd) {
    FA2B_REF_TRY(download(out.ref, ref_o, job.rows.size() * D, stream));
    FA2B_REF_TRY(download(out.lse, lse, job.rows.size(), stream));
    FA2B_REF_TRY(download(out.got, got, job.rows.size() * D, stream));
  } else if (job.kind == RefKind::dq) {
    double* ref_dq = nullptr;
    float* got_dq = nullptr;
    FA2B_REF_TRY(s.alloc(&ref_dq, job.rows.size() * D));
    FA2B_REF_TRY(s.alloc(&got_dq, job.rows.size() * D));
    if (n_rows > 0) {
      ref_dq_kernel<DT, N>
          <<<grid_for(n_rows), kThreads, 0, stream>>>(g, rows, n_rows, lse, di, ref_dq, got_dq);
      FA2B_REF_TRY(cudaGetLastError());
    }
    FA2B_REF_TRY(download(out.ref, ref_dq, job.rows.size() * D, stream));
    FA2B_REF_TRY(download(out.got, got_dq, job.rows.size() * D, stream));
  } else {
    RefKeyRow* keys = nullptr;
    FA2B_REF_TRY(upload(s, job.keys, &keys, stream));
    double *ref_dk = nullptr, *ref_dv = nullptr;
    float *got_dk = nullptr, *got_dv = nullptr;
    FA2B_REF_TRY(s.alloc(&ref_dk, job.keys.size() * D));
    FA2B_REF_TRY(s.alloc(&ref_dv, job.keys.size() * D));
    FA2B_REF_TRY(s.alloc(&got_dk, job.keys.size() * D));
    FA2B_REF_TRY(s.alloc(&got_dv, job.keys.size() * D));
    if (n_keys > 0) {
      ref_dkdv_kernel<DT, N><<<grid_for(n_keys), kThreads, 0, stream>>>(
          g, keys, n_keys, rows, lse, di, ref_dk, ref_dv, got_dk, got_dv);
      FA2B_REF_TRY(cudaGetLastError());
    }
    FA2B_REF_TRY(download(out.ref, ref_dk, job.keys.size() * D, stream));
    FA2B_REF_TRY(download(out.ref2, ref_dv, job.keys.size() * D, stream));
    FA2B_REF_TRY(download(out.got, got_dk, job.keys.size() * D, stream));
    FA2B_REF_TRY(download(out.got2, got_dv, job.keys.size() * D, stream));
  }
  return cudaStreamSynchronize(stream);  // before the scratch and the host vectors go
}

template <int DT>
cudaError_t run_dtype(const RefJob& job, const Geometry& g, RefJobOut& out, cudaStream_t stream) {
  if (job.D <= 32) return run_typed<DT, 1>(job, g, out, stream);
  if (job.D <= 64) return run_typed<DT, 2>(job, g, out, stream);
  if (job.D <= 128) return run_typed<DT, 4>(job, g, out, stream);
  return run_typed<DT, 8>(job, g, out, stream);
}

}  // namespace

cudaError_t run_device_reference(const RefJob& job, RefJobOut& out, cudaStream_t stream) {
  if (job.D <= 0 || job.D > kMaxD) return cudaErrorInvalidValue;
  const Geometry g{job.D,     job.scale, job.k_row_stride,
                   job.paged, job.table, job.page_size,
                   job.H_kv,  job.q,     job.k,
                   job.v,     job.o,     job.d_o,
                   job.dq,    job.dk,    job.dv};
  switch (job.dtype) {
    case 0:
      return run_dtype<0>(job, g, out, stream);
    case 1:
      return run_dtype<1>(job, g, out, stream);
    case 2:
      return run_dtype<2>(job, g, out, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace fa2b
