// SPDX-License-Identifier: Apache-2.0
// What the SDPA graphs (forward sdpa_graph.*, backward sdpa_bwd_graph.*) are built from: owned
// backend descriptors, a builder of tensors and operations, the causal mask both graphs apply,
// and the step from an operation graph to the first execution plan cuDNN's heuristics offer.
#pragma once

#include "runtime/cuda/cudnn_api.h"

#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <array>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fa2b {

// A cuDNN call failed; what() is "<call>: <status>: <cuDNN's message>".
class CudnnFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws CudnnFailure("<what>: <status text>") unless s is CUDNN_STATUS_SUCCESS.
void cudnn_check(const CudnnApi& api, cudnnStatus_t s, const char* what);

// Owns one backend descriptor.
class CudnnDesc {
 public:
  CudnnDesc() = default;
  CudnnDesc(const CudnnApi& api, cudnnBackendDescriptorType_t type);
  ~CudnnDesc();
  CudnnDesc(const CudnnDesc&) = delete;
  CudnnDesc& operator=(const CudnnDesc&) = delete;
  CudnnDesc(CudnnDesc&& o) noexcept : api_(o.api_), d_(o.d_) { o.d_ = nullptr; }
  CudnnDesc& operator=(CudnnDesc&& o) noexcept;
  cudnnBackendDescriptor_t get() const { return d_; }

 private:
  const CudnnApi* api_ = nullptr;
  cudnnBackendDescriptor_t d_ = nullptr;
};

// A finalised execution plan for one SDPA graph (forward or backward) of one shape, with every
// descriptor it was built from.
struct SdpaPlan {
  std::vector<CudnnDesc> keep;  // tensors, ops, graph, engine configs (kept alive)
  CudnnDesc plan;
  std::int64_t workspace_bytes = 0;
  bool bottom_right = false;  // the mask adds T_k - T_q to the row index
  bool padding = false;       // variable-length: binds kSeqLenQ, kSeqLenKv and kPadMaskValue
  bool ragged = false;        // packed: binds the ragged offsets kQOffsets .. kStatsOffsets
  double build_ms = 0;
  // Which engine ran, read back from the engine config the plan was built from:
  // "heur A #0: engine 8, knobs 24=1,25=0" (heuristics mode A or fallback, index of the
  // heuristics result, the engine's global index, knob type=value pairs). A read-back that
  // fails says so in place of the engine and knobs; it never fails the plan.
  std::string info;
};

// Tensor ids in the variant packs of both graphs; virtual tensors take ids from
// kFirstVirtualUid on.
namespace sdpa_uid {
constexpr std::int64_t kQ = 1, kK = 2, kV = 3, kO = 4, kStats = 5, kScale = 6, kMaskValue = 7,
                       kSkv = 8, kSq = 9;
// Backward only: the incoming gradient, the gradients, the constant 1 that scales the row sums
// (cudnn-frontend's dropout scale without dropout), and the float32 dQ accumulator and row sums
// cudnn-frontend keeps in its own workspace (here: in the backend's tracked buffer).
constexpr std::int64_t kDO = 10, kDQ = 11, kDK = 12, kDV = 13, kOne = 14, kDQAccum = 15,
                       kRowSums = 16;
// Forward of a variable-length batch: the per-sequence lengths ([B,1,1,1] int32) the padding
// mask and the matmuls' M/N/K overrides read, the padding mask's by-value mask value, and (packed
// only) the ragged offsets ([B+1,1,1,1] int64 element offsets) of Q, K, V, O and the Stats.
constexpr std::int64_t kSeqLenQ = 17, kSeqLenKv = 18, kPadMaskValue = 19, kQOffsets = 20,
                       kKOffsets = 21, kVOffsets = 22, kOOffsets = 23, kStatsOffsets = 24;
constexpr std::int64_t kFirstVirtualUid = 100;
}  // namespace sdpa_uid

using CudnnDims = std::array<std::int64_t, 4>;

// Strides of a packed (row-major) tensor of these dims.
CudnnDims packed_strides(const CudnnDims& d);

// Builds descriptors into `keep` (which owns them) and collects the graph's operations in the
// order they are added.
class GraphBuilder {
 public:
  GraphBuilder(const CudnnApi& api, std::vector<CudnnDesc>& keep) : api_(api), keep_(keep) {}

  const CudnnApi& api() const { return api_; }
  cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t type);
  void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
           cudnnBackendAttributeType_t type, std::int64_t count, const void* value,
           const char* what);
  void finalize(cudnnBackendDescriptor_t d, const char* what);

  // A tensor of 16-byte alignment (cudnn-frontend's default); `ragged` (a tensor of B + 1
  // element offsets, or null) places batch b at element ragged[b] of the buffer
  // (CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC), the batch stride then unused.
  cudnnBackendDescriptor_t tensor(std::int64_t uid, cudnnDataType_t dt, const CudnnDims& dims,
                                  const CudnnDims& strides, bool is_virtual, bool by_value = false,
                                  cudnnBackendDescriptor_t ragged = nullptr);
  // A virtual tensor with the next free uid: packed strides, or the ones given.
  cudnnBackendDescriptor_t virt(cudnnDataType_t dt, const CudnnDims& dims);
  cudnnBackendDescriptor_t virt(cudnnDataType_t dt, const CudnnDims& dims,
                                const CudnnDims& strides);
  // A by-value scalar ([1,1,1,1]) the variant pack passes by host pointer.
  cudnnBackendDescriptor_t scalar(std::int64_t uid, cudnnDataType_t dt);

  // y = mode(x[, b[, t]]) with math precision `prec`; `axis` for GEN_INDEX.
  void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t prec, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y,
                 std::int64_t axis = -1);
  // y = reduce(x) over the dims where y is smaller, in float32.
  void reduction(cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t y);
  // c = a b (batched over dims 0 and 1, broadcasting a head dim of b), in float32. The optional
  // override tensors ([B,1,1,1] int32) give each batch its own M, N or K (a variable-length
  // batch; cudnn-frontend's set_m_override / set_n_override / set_k_override).
  void matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c,
              cudnnBackendDescriptor_t m_override = nullptr,
              cudnnBackendDescriptor_t n_override = nullptr,
              cudnnBackendDescriptor_t k_override = nullptr);
  // y = x seen with y's dims and strides (a view: no data moves).
  void reshape(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y);

  const std::vector<cudnnBackendDescriptor_t>& ops() const { return ops_; }

 private:
  const CudnnApi& api_;
  std::vector<CudnnDesc>& keep_;
  std::vector<cudnnBackendDescriptor_t> ops_;
  std::int64_t next_uid_ = sdpa_uid::kFirstVirtualUid;
};

// The causal mask of both graphs, as cudnn-frontend's diagonal band mask lowers it (right bound
// 0): keep key j for query row i when i (+ T_k - T_q, bottom-right, when T_q != T_k) >= j, else
// the by-value mask value (kMaskValue). `s` is float32 [B, H, T_q, T_k]; returns the masked
// scores. Sets plan.bottom_right when the row index is shifted (the variant pack then binds
// kSkv and kSq).
cudnnBackendDescriptor_t causal_mask(GraphBuilder& g, cudnnBackendDescriptor_t s,
                                     const CudnnDims& scores, bool shift, SdpaPlan& plan);

// The padding mask of a variable-length batch, as cudnn-frontend's score modifier lowers it:
// keep (row < seq_len_q[b]) && (col < seq_len_kv[b]), else the by-value kPadMaskValue.
// `seq_q` and `seq_kv` are the [B,1,1,1] int32 length tensors; `s` is float32 [B, H, T_q, T_k];
// returns the masked scores.
cudnnBackendDescriptor_t padding_mask(GraphBuilder& g, cudnnBackendDescriptor_t s,
                                      const CudnnDims& scores, cudnnBackendDescriptor_t seq_q,
                                      cudnnBackendDescriptor_t seq_kv);

// Finalises the operation graph of g's ops, asks the heuristics (mode A, then fallback) and
// keeps in `out` the first engine config whose execution plan finalises: plan, workspace size,
// info, build_ms (from `start`). Throws CudnnFailure with the last refusal when none does.
void finalize_sdpa_plan(GraphBuilder& g, cudnnHandle_t handle, SdpaPlan& out,
                        std::chrono::steady_clock::time_point start);

// What the plan's engine config holds: "engine 8, knobs 24=1,25=0" ("knobs none" without
// knobs), or "engine ? (read-back failed: <call>: <status>)". Never throws.
std::string describe_engine_config(const CudnnApi& api, cudnnBackendDescriptor_t engine_cfg);

// Sets a variant pack's uids, pointers and workspace and finalises it.
void fill_variant_pack(const CudnnApi& api, cudnnBackendDescriptor_t pack,
                       const std::vector<std::int64_t>& uids, const std::vector<void*>& ptrs,
                       void* workspace);

}  // namespace fa2b
#endif
