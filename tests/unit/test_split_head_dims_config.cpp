// SPDX-License-Identifier: Apache-2.0
// The D_v axis (V and O with a head dim of their own, D_qk != D_v): config expansion, ids,
// FLOPs and bytes of the shape algebra, the results file's params, the catalog's refusal on the
// backends that take one head dim, and the kernels' strides.
#include <gtest/gtest.h>

#include <string>

#include "backends/backend.h"
#include "backends/shape_params.h"
#include "config/config.h"
#include "config_errors.h"
#include "core/shape_algebra.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

using json = nlohmann::json;
using test_config::has_error;

json with_grid(const json& grid) {
  json j = json::parse(R"({
    "name": "dv",
    "defaults": {"B": 2, "H": 4, "H_kv": 2, "D": 192, "T_q": 17, "T_k": 33},
    "sweeps": [{"name": "s", "backends": ["naive", "fa2"]}]
  })");
  if (!grid.empty()) j["sweeps"][0]["grid"] = grid;
  return j;
}

Case split_case() {
  Case c;
  c.backend = "naive";
  c.B = 2;
  c.H = 4;
  c.H_kv = 2;
  c.T_q = 17;
  c.T_k = 33;
  c.D = 192;
  c.D_v = 128;
  c.dtype = DType::bf16;
  return c;
}

TEST(SplitHeadDims, TheAxisExpandsAndNamesTheCase) {
  const Config c = parse_config(with_grid({{"D_v", {128, 192}}}), "dv.json");
  ASSERT_EQ(c.cases.size(), 4u);
  EXPECT_EQ(c.cases[0].id(), "naive/B2-H4-Hkv2-Tq17-Tk33-D192-Dv128/fp16/full");
  EXPECT_EQ(c.cases[0].Dv(), 128);
  // D_v = D is the usual case: no D_v of its own, the id and params as before the axis.
  EXPECT_EQ(c.cases[2].D_v, 0);
  EXPECT_FALSE(c.cases[2].split_head_dims());
  EXPECT_EQ(c.cases[2].id(), "naive/B2-H4-Hkv2-Tq17-Tk33-D192/fp16/full");
  // Without the axis every case has D_v = D.
  const Config plain = parse_config(with_grid({}), "dv.json");
  EXPECT_EQ(plain.cases[0].Dv(), 192);
}

TEST(SplitHeadDims, BadValuesAndLayoutsAreRefusedNamingTheField) {
  EXPECT_TRUE(has_error(with_grid({{"D_v", {0}}}), "/sweeps/0/grid/D_v"));
  json paged = with_grid({{"D_v", {128}}, {"kv_layout", "paged"}, {"page_size", 16}});
  EXPECT_TRUE(has_error(paged, "D_v = 128 with D = 192: paged KV caches take one head dim"));
  json varlen = with_grid({{"D_v", {128}}, {"lengths", {{5, 9}}}, {"packing", "packed"}});
  varlen["defaults"].erase("T_q");
  varlen["defaults"].erase("T_k");
  varlen["defaults"]["B"] = 2;
  EXPECT_TRUE(has_error(varlen, "variable-length batches take one head dim"));
}

TEST(SplitHeadDims, FlopsAndBytesCountEachHeadDim) {
  Case c = split_case();
  // 2*B*H*T_q*T_k*(D + D_v): the scores over D, the output over D_v.
  EXPECT_DOUBLE_EQ(attention_flops(c), 2.0 * 2 * 4 * 17 * 33 * (192 + 128));
  // Q (D) and O (D_v), K (D) and V (D_v), bf16, and the float32 LSE.
  const std::int64_t io =
      (2 * 4 * 17 * (192 + 128) + 2 * 2 * 33 * (192 + 128)) * 2 + 2 * 4 * 17 * 4;
  EXPECT_EQ(io_bytes(c), io);
  c.mode = Mode::fwd_bwd;
  // dO (D_v), dQ (D), dK (D), dV (D_v).
  EXPECT_EQ(grad_io_bytes(c), (2 * 4 * 17 * (192 + 128) + 2 * 2 * 33 * (192 + 128)) * 2);
  // The flash state's O accumulator is D_v wide.
  EXPECT_EQ(flash_state_bytes(c), 4 * 2 * 4 * 17 * (2 + 128));
  // With D_v = D all of it is what it was: 4*B*H*T_q*T_k*D.
  c.D_v = 0;
  c.mode = Mode::fwd;
  EXPECT_DOUBLE_EQ(attention_flops(c), 4.0 * 2 * 4 * 17 * 33 * 192);
}

TEST(SplitHeadDims, ParamsCarryDvOnlyWhereItDiffers) {
  CaseResult r;
  r.c = split_case();
  const json j = to_json(r);
  EXPECT_EQ(j["params"]["D_v"], 128);
  EXPECT_EQ(case_result_from_json(j).c.Dv(), 128);
  r.c.D_v = 0;
  const json same = to_json(r);
  EXPECT_FALSE(same["params"].contains("D_v"));
  EXPECT_FALSE(case_result_from_json(same).c.split_head_dims());
  json bad = j;
  bad["params"]["D_v"] = -1;
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
}

TEST(SplitHeadDims, OneHeadDimBackendsAreRefusedTheCpuTargetTakesIt) {
  const Case c = split_case();
  for (const char* name : {"naive", "standard", "fa2", "fa3", "cudnn"}) {
    const Support s = catalog_head_dims_support(c, name);
    EXPECT_FALSE(s.ok) << name;
    EXPECT_NE(s.reason.find("D_v = 128 with D = 192"), std::string::npos) << s.reason;
  }
  EXPECT_TRUE(catalog_head_dims_support(c, "cpu-naive").ok);
  EXPECT_TRUE(catalog_head_dims_support(c, "cpu-flash").ok);
  Case same = c;
  same.D_v = 0;
  EXPECT_TRUE(catalog_head_dims_support(same, "fa3").ok);
}

TEST(SplitHeadDims, KernelStridesGiveVAndOTheirWidth) {
  Case c = split_case();
  c.layout = Layout::bshd;
  const AttnParams p = shape_params(c);
  EXPECT_EQ(p.D, 192);
  EXPECT_EQ(attn_dv(p), 128);
  EXPECT_EQ(p.q_row_stride, 4 * 192);
  EXPECT_EQ(p.o_row_stride, 4 * 128);
  EXPECT_EQ(p.k_row_stride, 2 * 192);
  EXPECT_EQ(p.v_row_stride, 2 * 128);
  EXPECT_EQ(p.o_batch_stride, 17 * 4 * 128);
  EXPECT_EQ(p.v_batch_stride, 33 * 2 * 128);
  EXPECT_FLOAT_EQ(p.scale, static_cast<float>(1.0 / std::sqrt(192.0)));
}

}  // namespace
}  // namespace fa2b
