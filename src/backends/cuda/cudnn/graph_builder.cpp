// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cudnn/graph_builder.h"

#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <fmt/format.h>

#include <algorithm>
#include <exception>

namespace fa2b {
namespace {

// Attributes cuDNN 9 marks deprecated (the handle is still read by 9.x versions before the
// deprecation), named by value so the deprecation warning does not fail our -Werror build.
constexpr auto kOperationGraphHandle = static_cast<cudnnBackendAttributeName_t>(800);
constexpr auto kExecutionPlanHandle = static_cast<cudnnBackendAttributeName_t>(400);

}  // namespace

void cudnn_check(const CudnnApi& api, cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) {
    throw CudnnFailure(fmt::format("{}: {}", what, cudnn_status_text(api, s)));
  }
}

CudnnDims packed_strides(const CudnnDims& d) {
  return {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
}

CudnnDesc::CudnnDesc(const CudnnApi& api, cudnnBackendDescriptorType_t type) : api_(&api) {
  cudnn_check(api, api.BackendCreateDescriptor(type, &d_), "cudnnBackendCreateDescriptor");
}

CudnnDesc::~CudnnDesc() {
  if (d_ != nullptr) (void)api_->BackendDestroyDescriptor(d_);
}

CudnnDesc& CudnnDesc::operator=(CudnnDesc&& o) noexcept {
  if (this != &o) {
    if (d_ != nullptr) (void)api_->BackendDestroyDescriptor(d_);
    api_ = o.api_;
    d_ = o.d_;
    o.d_ = nullptr;
  }
  return *this;
}

cudnnBackendDescriptor_t GraphBuilder::make(cudnnBackendDescriptorType_t type) {
  keep_.emplace_back(api_, type);
  return keep_.back().get();
}

void GraphBuilder::set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                       cudnnBackendAttributeType_t type, std::int64_t count, const void* value,
                       const char* what) {
  cudnn_check(api_, api_.BackendSetAttribute(d, name, type, count, value), what);
}

void GraphBuilder::finalize(cudnnBackendDescriptor_t d, const char* what) {
  cudnn_check(api_, api_.BackendFinalize(d), what);
}

cudnnBackendDescriptor_t GraphBuilder::tensor(std::int64_t uid, cudnnDataType_t dt,
                                              const CudnnDims& dims, const CudnnDims& strides,
                                              bool is_virtual, bool by_value,
                                              cudnnBackendDescriptor_t ragged) {
  cudnnBackendDescriptor_t t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const std::int64_t alignment = 16;
  set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt, "tensor data type");
  set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data(), "tensor dims");
  set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data(), "tensor strides");
  set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, "tensor uid");
  set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment, "tensor alignment");
  set(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual, "tensor virtual");
  if (by_value) {
    set(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value, "tensor by value");
  }
  if (ragged != nullptr) {
    set(t, CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ragged,
        "tensor ragged offsets");
  }
  finalize(t, "tensor finalize");
  return t;
}

cudnnBackendDescriptor_t GraphBuilder::virt(cudnnDataType_t dt, const CudnnDims& dims) {
  return tensor(next_uid_++, dt, dims, packed_strides(dims), true);
}

cudnnBackendDescriptor_t GraphBuilder::virt(cudnnDataType_t dt, const CudnnDims& dims,
                                            const CudnnDims& strides) {
  return tensor(next_uid_++, dt, dims, strides, true);
}

cudnnBackendDescriptor_t GraphBuilder::scalar(std::int64_t uid, cudnnDataType_t dt) {
  return tensor(uid, dt, {1, 1, 1, 1}, {1, 1, 1, 1}, false, true);
}

void GraphBuilder::pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t prec,
                             cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                             cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y,
                             std::int64_t axis) {
  cudnnBackendDescriptor_t pw = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  set(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode, "pointwise mode");
  set(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec, "pointwise prec");
  if (axis >= 0) set(pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis, "pointwise axis");
  finalize(pw, "pointwise finalize");
  cudnnBackendDescriptor_t op = make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  const auto D = CUDNN_TYPE_BACKEND_DESCRIPTOR;
  set(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, D, 1, &pw, "pointwise op desc");
  set(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, D, 1, &x, "pointwise op x");
  if (b != nullptr) set(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, D, 1, &b, "pointwise op b");
  if (t != nullptr) set(op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, D, 1, &t, "pointwise op t");
  set(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, D, 1, &y, "pointwise op y");
  finalize(op, "pointwise op finalize");
  ops_.push_back(op);
}

void GraphBuilder::reduction(cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x,
                             cudnnBackendDescriptor_t y) {
  cudnnBackendDescriptor_t red = make(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  set(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode,
      "reduction mode");
  set(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32, "reduction type");
  finalize(red, "reduction finalize");
  cudnnBackendDescriptor_t op = make(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  const auto D = CUDNN_TYPE_BACKEND_DESCRIPTOR;
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, D, 1, &x, "reduction op x");
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, D, 1, &y, "reduction op y");
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, D, 1, &red, "reduction op desc");
  finalize(op, "reduction op finalize");
  ops_.push_back(op);
}

void GraphBuilder::matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                          cudnnBackendDescriptor_t c, cudnnBackendDescriptor_t m_override,
                          cudnnBackendDescriptor_t n_override,
                          cudnnBackendDescriptor_t k_override) {
  cudnnBackendDescriptor_t mm = make(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  set(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32, "matmul type");
  finalize(mm, "matmul finalize");
  cudnnBackendDescriptor_t op = make(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  const auto D = CUDNN_TYPE_BACKEND_DESCRIPTOR;
  set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, D, 1, &a, "matmul op a");
  set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, D, 1, &b, "matmul op b");
  set(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, D, 1, &c, "matmul op c");
  set(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, D, 1, &mm, "matmul op desc");
  if (m_override != nullptr) {
    set(op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, D, 1, &m_override,
        "matmul op M override");
  }
  if (n_override != nullptr) {
    set(op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, D, 1, &n_override,
        "matmul op N override");
  }
  if (k_override != nullptr) {
    set(op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, D, 1, &k_override,
        "matmul op K override");
  }
  finalize(op, "matmul op finalize");
  ops_.push_back(op);
}

void GraphBuilder::reshape(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
  cudnnBackendDescriptor_t op = make(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  const auto D = CUDNN_TYPE_BACKEND_DESCRIPTOR;
  set(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, D, 1, &x, "reshape op x");
  set(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, D, 1, &y, "reshape op y");
  finalize(op, "reshape op finalize");
  ops_.push_back(op);
}

cudnnBackendDescriptor_t causal_mask(GraphBuilder& g, cudnnBackendDescriptor_t s,
                                     const CudnnDims& scores, bool shift, SdpaPlan& plan) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, i32 = CUDNN_DATA_INT32,
                        boolean = CUDNN_DATA_BOOLEAN;
  auto row = g.virt(i32, scores);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, s, nullptr, nullptr, row, 2);
  auto col = g.virt(i32, scores);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, s, nullptr, nullptr, col, 3);
  if (shift) {
    plan.bottom_right = true;
    auto skv = g.scalar(sdpa_uid::kSkv, i32);
    auto sq = g.scalar(sdpa_uid::kSq, i32);
    auto row_skv = g.virt(i32, scores);
    g.pointwise(CUDNN_POINTWISE_ADD, i32, row, skv, nullptr, row_skv);
    auto row_shifted = g.virt(i32, scores);
    g.pointwise(CUDNN_POINTWISE_SUB, i32, row_skv, sq, nullptr, row_shifted);
    row = row_shifted;
  }
  auto keep = g.virt(boolean, scores);
  g.pointwise(CUDNN_POINTWISE_CMP_GE, boolean, row, col, nullptr, keep);
  auto mask_value = g.scalar(sdpa_uid::kMaskValue, f32);
  auto masked = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, s, mask_value, keep, masked);
  return masked;
}

cudnnBackendDescriptor_t padding_mask(GraphBuilder& g, cudnnBackendDescriptor_t s,
                                      const CudnnDims& scores, cudnnBackendDescriptor_t seq_q,
                                      cudnnBackendDescriptor_t seq_kv) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, i32 = CUDNN_DATA_INT32,
                        boolean = CUDNN_DATA_BOOLEAN;
  // cudnn-frontend's order and compute types: row and column indices in int32, each compared
  // with its length in boolean, the two ANDed, then the select of the scores.
  auto row = g.virt(i32, scores);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, i32, s, nullptr, nullptr, row, 2);
  auto col = g.virt(i32, scores);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, i32, s, nullptr, nullptr, col, 3);
  auto row_in = g.virt(boolean, scores);
  g.pointwise(CUDNN_POINTWISE_CMP_LT, boolean, row, seq_q, nullptr, row_in);
  auto col_in = g.virt(boolean, scores);
  g.pointwise(CUDNN_POINTWISE_CMP_LT, boolean, col, seq_kv, nullptr, col_in);
  auto keep = g.virt(boolean, scores);
  g.pointwise(CUDNN_POINTWISE_LOGICAL_AND, boolean, row_in, col_in, nullptr, keep);
  auto mask_value = g.scalar(sdpa_uid::kPadMaskValue, f32);
  auto masked = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, s, mask_value, keep, masked);
  return masked;
}

std::string describe_engine_config(const CudnnApi& api, cudnnBackendDescriptor_t engine_cfg) {
  try {
    const auto failed = [&](const char* what, cudnnStatus_t s) {
      return fmt::format("(read-back failed: {}: {})", what, cudnn_status_text(api, s));
    };
    // cuDNN copies attributes of descriptor type into descriptors the caller created.
    CudnnDesc engine(api, CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    cudnnBackendDescriptor_t e = engine.get();
    std::int64_t n = 0;
    cudnnStatus_t s = api.BackendGetAttribute(engine_cfg, CUDNN_ATTR_ENGINECFG_ENGINE,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e);
    if (s != CUDNN_STATUS_SUCCESS) {
      return "engine ? " + failed("CUDNN_ATTR_ENGINECFG_ENGINE", s);
    }
    std::int64_t index = -1;
    s = api.BackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &index);
    if (s != CUDNN_STATUS_SUCCESS) {
      return "engine ? " + failed("CUDNN_ATTR_ENGINE_GLOBAL_INDEX", s);
    }
    std::string text = fmt::format("engine {}, knobs ", index);

    std::vector<CudnnDesc> choices;
    std::vector<cudnnBackendDescriptor_t> raw;
    choices.reserve(CUDNN_KNOB_TYPE_COUNTS);
    for (int k = 0; k < CUDNN_KNOB_TYPE_COUNTS; ++k) {
      choices.emplace_back(api, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
      raw.push_back(choices.back().get());
    }
    std::int64_t count = 0;
    s = api.BackendGetAttribute(engine_cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                static_cast<std::int64_t>(raw.size()), &count, raw.data());
    if (s != CUDNN_STATUS_SUCCESS)
      return text + "? " + failed("CUDNN_ATTR_ENGINECFG_KNOB_CHOICES", s);
    count = std::clamp<std::int64_t>(count, 0, static_cast<std::int64_t>(raw.size()));
    if (count == 0) return text + "none";
    for (std::int64_t k = 0; k < count; ++k) {
      cudnnBackendKnobType_t type = CUDNN_KNOB_TYPE_COUNTS;
      std::int64_t value = 0;
      const cudnnBackendDescriptor_t c = raw[static_cast<std::size_t>(k)];
      const bool ok =
          api.BackendGetAttribute(c, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &n,
                                  &type) == CUDNN_STATUS_SUCCESS &&
          api.BackendGetAttribute(c, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &n,
                                  &value) == CUDNN_STATUS_SUCCESS;
      if (k > 0) text += ',';
      text += ok ? fmt::format("{}={}", static_cast<int>(type), value) : std::string("?");
    }
    return text;
  } catch (const std::exception& ex) {
    return fmt::format("engine ? (read-back failed: {})", ex.what());
  } catch (...) {
    return "engine ? (read-back failed)";
  }
}

void finalize_sdpa_plan(GraphBuilder& g, cudnnHandle_t handle, SdpaPlan& out,
                        std::chrono::steady_clock::time_point start) {
  const CudnnApi& api = g.api();
  // Operation graph, heuristics, and the first engine config whose plan finalises.
  cudnnBackendDescriptor_t graph = g.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  g.set(graph, kOperationGraphHandle, CUDNN_TYPE_HANDLE, 1, &handle, "graph handle");
  g.set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        static_cast<std::int64_t>(g.ops().size()), g.ops().data(), "graph ops");
  g.finalize(graph, "operation graph finalize");

  std::string last_error = "the heuristics returned no engine configuration";
  for (const cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    cudnnBackendDescriptor_t heur = g.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    g.set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph,
          "heuristics graph");
    g.set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, "heuristics mode");
    const cudnnStatus_t hs = api.BackendFinalize(heur);
    if (hs != CUDNN_STATUS_SUCCESS) {
      last_error = "heuristics finalize: " + cudnn_status_text(api, hs);
      continue;
    }
    std::int64_t count = 0;
    cudnn_check(api,
                api.BackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                        CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
                "heuristics result count");
    if (count <= 0) continue;
    std::vector<cudnnBackendDescriptor_t> cfgs;
    for (std::int64_t i = 0; i < count; ++i)
      cfgs.push_back(g.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    std::int64_t got = 0;
    cudnn_check(api,
                api.BackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                        CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, cfgs.data()),
                "heuristics results");
    for (std::int64_t i = 0; i < got; ++i) {
      CudnnDesc plan(api, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      g.set(plan.get(), kExecutionPlanHandle, CUDNN_TYPE_HANDLE, 1, &handle, "plan handle");
      g.set(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
            &cfgs[static_cast<std::size_t>(i)], "plan engine config");
      const cudnnStatus_t ps = api.BackendFinalize(plan.get());
      if (ps != CUDNN_STATUS_SUCCESS) {
        last_error = "execution plan finalize: " + cudnn_status_text(api, ps);
        continue;
      }
      std::int64_t n = 0;
      cudnn_check(api,
                  api.BackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                          CUDNN_TYPE_INT64, 1, &n, &out.workspace_bytes),
                  "plan workspace size");
      out.plan = std::move(plan);
      out.info = fmt::format("heur {} #{}: {}", mode == CUDNN_HEUR_MODE_A ? "A" : "fallback", i,
                             describe_engine_config(api, cfgs[static_cast<std::size_t>(i)]));
      out.build_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      return;
    }
  }
  throw CudnnFailure(last_error);
}

void fill_variant_pack(const CudnnApi& api, cudnnBackendDescriptor_t pack,
                       const std::vector<std::int64_t>& uids, const std::vector<void*>& ptrs,
                       void* workspace) {
  const auto n = static_cast<std::int64_t>(uids.size());
  cudnn_check(api,
              api.BackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n,
                                      uids.data()),
              "variant pack uids");
  cudnn_check(api,
              api.BackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                      CUDNN_TYPE_VOID_PTR, n, ptrs.data()),
              "variant pack pointers");
  cudnn_check(api,
              api.BackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR,
                                      1, &workspace),
              "variant pack workspace");
  cudnn_check(api, api.BackendFinalize(pack), "variant pack finalize");
}

}  // namespace fa2b
#endif
