// SPDX-License-Identifier: Apache-2.0
// The lengths and packing axes of configs (variable-length batches): lists and seeded
// distributions, the exit-2 messages for bad values (each naming its JSON pointer), ids, the
// plan metrics (tokens, padding, useful and executed FLOPs) and the lengths in results files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "checks/check_common.h"
#include "config/config.h"
#include "config_errors.h"
#include "core/seq_lengths.h"
#include "core/shape_algebra.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

using test_config::errors_of;
using test_config::has_error;

using json = nlohmann::json;

json with_grid(const json& grid) {
  json j = json::parse(R"({
    "name": "v",
    "defaults": {"H": 2, "D": 64},
    "sweeps": [{"name": "s", "backends": ["fa2"]}]
  })");
  j["sweeps"][0]["grid"] = grid;
  return j;
}

const json kUniform = json::parse(R"({"dist": "uniform", "min": 512, "max": 8192, "seed": 1})");
// kUniform's first draws, as a Python splitmix64 of seed 1 gives them too
// (floor(512 + u * 7681), u = the top 53 bits of each output / 2^53).
constexpr std::int64_t kPinnedUniform[] = {4863, 6240, 7970, 3925};

TEST(VarlenConfig, AListIsOneBatchThatSetsBAndT) {
  const Config c = parse_config(with_grid({{"lengths", {17, 1, 0, 4097}}}), "v.json");
  ASSERT_EQ(c.cases.size(), 1u);
  const Case& k = c.cases[0];
  EXPECT_EQ(k.lengths, (std::vector<std::int64_t>{17, 1, 0, 4097}));
  EXPECT_EQ(k.B, 4);
  EXPECT_EQ(k.T_q, 4097);
  EXPECT_EQ(k.T_k, 4097);
  EXPECT_EQ(k.packing, Packing::padded);
  EXPECT_EQ(k.lengths_source.dist, LengthDist::list);
  const std::string tag = lengths_tag(k);
  EXPECT_EQ(tag.rfind("list-", 0), 0u);
  EXPECT_EQ(tag.size(), 13u);
  EXPECT_EQ(k.id(), "fa2/B4-H2-L=" + tag + "-D64/fp16/full/padded");
  // The tag is the lengths', in order.
  const Config other = parse_config(with_grid({{"lengths", {1, 17, 0, 4097}}}), "v.json");
  EXPECT_NE(lengths_tag(other.cases[0]), tag);
}

TEST(VarlenConfig, AListOfBatchesAndDistributionsIsAnAxis) {
  // A distribution draws /defaults' B lengths; a list sets its own B (a B of /defaults yields).
  json j = with_grid({{"lengths", json::array({json::array({17, 1}), kUniform})},
                      {"packing", {"padded", "packed"}}});
  j["defaults"]["B"] = 16;
  const Config c = parse_config(j, "v.json");
  ASSERT_EQ(c.cases.size(), 4u);
  EXPECT_EQ(c.cases[0].B, 2);
  EXPECT_EQ(c.cases[2].B, 16);
  EXPECT_EQ(c.cases[0].packing, Packing::padded);
  EXPECT_EQ(c.cases[1].packing, Packing::packed);
  // B in the grid with a list of 2 lengths contradicts it.
  EXPECT_TRUE(has_error(with_grid({{"B", 3}, {"lengths", {17, 1}}}),
                        "/sweeps/0/grid/B: B = 3 contradicts the 2 lengths given"));
}

TEST(VarlenConfig, DistributionsDrawBSeededLengths) {
  const Config c = parse_config(with_grid({{"B", 16}, {"lengths", kUniform}}), "v.json");
  ASSERT_EQ(c.cases.size(), 1u);
  const Case& k = c.cases[0];
  ASSERT_EQ(k.lengths.size(), 16u);
  for (const auto n : k.lengths) {
    EXPECT_GE(n, 512);
    EXPECT_LE(n, 8192);
  }
  EXPECT_EQ(k.T_q, *std::max_element(k.lengths.begin(), k.lengths.end()));
  EXPECT_EQ(k.id(), "fa2/B16-H2-L=uniform512-8192s1-D64/fp16/full/padded");
  // The same on every machine: the draw is pinned, not left to <random>'s distributions.
  EXPECT_EQ(std::vector<std::int64_t>(k.lengths.begin(), k.lengths.begin() + 4),
            (std::vector<std::int64_t>{kPinnedUniform[0], kPinnedUniform[1], kPinnedUniform[2],
                                       kPinnedUniform[3]}));
  LengthSource s = k.lengths_source;
  s.seed = 2;
  EXPECT_NE(draw_lengths(s, 16), k.lengths);

  const json lognormal = json::parse(
      R"({"dist": "lognormal", "mean": 7.5, "sigma": 0.8, "min": 64, "max": 8192, "seed": 7})");
  const Config l = parse_config(with_grid({{"B", 64}, {"lengths", lognormal}}), "v.json");
  const Case& m = l.cases[0];
  ASSERT_EQ(m.lengths.size(), 64u);
  double log_sum = 0;
  for (const auto n : m.lengths) {
    EXPECT_GE(n, 64);
    EXPECT_LE(n, 8192);
    log_sum += std::log(static_cast<double>(n));
  }
  // exp(7.5) ~ 1808: the logs' mean is near 7.5 (64 draws of sigma 0.8: +-0.3 is 3 sigma).
  EXPECT_NEAR(log_sum / 64, 7.5, 0.3);
  EXPECT_EQ(m.id(), "fa2/B64-H2-L=lognormal7.5x0.8-64-8192s7-D64/fp16/full/padded");
}

TEST(VarlenConfig, PackedIsTokenMajorAndTagged) {
  const Config c = parse_config(
      with_grid({{"lengths", {17, 1, 0, 4097}}, {"packing", "packed"}, {"causal", true}}),
      "v.json");
  const Case& k = c.cases[0];
  EXPECT_EQ(k.packing, Packing::packed);
  EXPECT_EQ(k.layout, Layout::bshd);
  EXPECT_EQ(k.id(), "fa2/B4-H2-L=" + lengths_tag(k) + "-D64/fp16/causal/packed");
  EXPECT_TRUE(
      errors_of(with_grid({{"lengths", {3}}, {"packing", "packed"}, {"layout", "bshd"}})).empty());
  EXPECT_TRUE(has_error(with_grid({{"lengths", {3}}, {"packing", "packed"}, {"layout", "bhsd"}}),
                        "/sweeps/0/grid/layout: a packed batch is token-major"));
}

TEST(VarlenConfig, BadValuesExitTwoNamingTheField) {
  EXPECT_TRUE(has_error(with_grid({{"lengths", {17, -1, 3}}}),
                        "/sweeps/0/grid/lengths/1: length -1 is negative"));
  EXPECT_TRUE(has_error(with_grid({{"lengths", json::array({json::array()})}}),
                        "/sweeps/0/grid/lengths/0: empty list of lengths"));
  EXPECT_TRUE(
      has_error(with_grid({{"lengths", json::array()}}), "/sweeps/0/grid/lengths: empty list"));
  EXPECT_TRUE(has_error(with_grid({{"lengths", {17, 1.5}}}), "/sweeps/0/grid/lengths/1"));
  EXPECT_TRUE(has_error(with_grid({{"lengths", "long"}}),
                        "/sweeps/0/grid/lengths: expected the lengths of one batch"));
  EXPECT_TRUE(has_error(with_grid({{"lengths", {0, 0}}}),
                        "/sweeps/0/grid/lengths: every length is 0: the batch has no tokens"));
  EXPECT_TRUE(has_error(with_grid({{"lengths", {std::int64_t{3000000000}}}}),
                        "/sweeps/0/grid/lengths/0: length 3000000000 is beyond 2147483647"));
  EXPECT_TRUE(has_error(with_grid({{"lengths", {2000000000, 2000000000}}}),
                        "/sweeps/0/grid/lengths: the batch's tokens add up to more than"));
  // A refused lengths axis is not also reported as a missing sequence length.
  EXPECT_EQ(errors_of(with_grid({{"lengths", {-1}}})).size(), 1u);

  json d = kUniform;
  d["dist"] = "gauss";
  EXPECT_TRUE(has_error(with_grid({{"lengths", d}}),
                        "/sweeps/0/grid/lengths/dist: unknown length distribution \"gauss\""));
  d = kUniform;
  d.erase("seed");
  EXPECT_TRUE(has_error(with_grid({{"lengths", d}}),
                        "/sweeps/0/grid/lengths: missing \"seed\" of the uniform"));
  d = kUniform;
  d["min"] = 9000;
  EXPECT_TRUE(has_error(with_grid({{"lengths", d}}),
                        "/sweeps/0/grid/lengths/min: min 9000 is greater than max 8192"));
  d = kUniform;
  d["max"] = -4;
  EXPECT_TRUE(has_error(with_grid({{"lengths", d}}), "/sweeps/0/grid/lengths/max: length -4"));
  d = kUniform;
  d["sigma"] = 1;  // lognormal's key on a uniform distribution
  EXPECT_TRUE(has_error(with_grid({{"lengths", d}}),
                        "/sweeps/0/grid/lengths/sigma: unknown length distribution key"));
  d = json::parse(
      R"({"dist": "lognormal", "mean": 7, "sigma": -1, "min": 1, "max": 10, "seed": 0})");
  EXPECT_TRUE(
      has_error(with_grid({{"lengths", d}}), "/sweeps/0/grid/lengths/sigma: sigma -1 is negative"));

  // With lengths, T is the longest a sequence may be; T_q != T_k is not self-attention.
  EXPECT_TRUE(
      has_error(with_grid({{"T", 1000}, {"lengths", {17, 4097}}}),
                "/sweeps/0/grid/lengths: length 4097 (sequence 1) is longer than T = 1000"));
  EXPECT_TRUE(has_error(with_grid({{"T", 1000}, {"lengths", kUniform}}),
                        "/sweeps/0/grid/lengths/max: a length up to max = 8192 may be longer "
                        "than T = 1000"));
  EXPECT_TRUE(has_error(with_grid({{"T_q", 100}, {"T_k", 200}, {"lengths", {17}}}),
                        "/sweeps/0/grid/T_q: lengths are self-attention lengths"));
  const Config capped = parse_config(with_grid({{"T", 5000}, {"lengths", {17, 4097}}}), "v.json");
  EXPECT_EQ(capped.cases[0].T_q, 4097);

  EXPECT_TRUE(has_error(with_grid({{"T", 64}, {"packing", "packed"}}),
                        "/sweeps/0/grid/packing: packing applies to a variable-length batch"));
  EXPECT_TRUE(has_error(with_grid({{"lengths", {3}}, {"packing", "paded"}}),
                        "/sweeps/0/grid/packing: unknown packing \"paded\" (did you mean "
                        "\"padded\"?)"));
}

TEST(VarlenConfig, SelectorsTakePackingAndTheLengthsTag) {
  json j = with_grid({{"lengths", json::array({json::array({3, 0}), kUniform})},
                      {"packing", {"padded", "packed"}}});
  j["sweeps"][0]["exclude"] =
      json::parse(R"([{"packing": "padded", "lengths": "uniform512-8192s1"}])");
  const Config c = parse_config(j, "v.json");
  ASSERT_EQ(c.cases.size(), 3u);
  for (const Case& k : c.cases) {
    EXPECT_FALSE(k.packing == Packing::padded && k.lengths_source.dist == LengthDist::uniform);
  }
  j["sweeps"][0]["exclude"] = json::parse(R"([{"lengths": 3}])");
  EXPECT_TRUE(has_error(j, "/sweeps/0/exclude/0/lengths: expected the lengths' tag"));
}

TEST(VarlenConfig, PlanMetricsCountRealTokens) {
  Case c;
  c.backend = "fa2";
  c.H = 2;
  c.H_kv = 2;
  c.D = 64;
  c.dtype = DType::bf16;
  c.lengths = {17, 1, 0, 100};
  c.B = 4;
  c.T_q = c.T_k = 100;
  const double per_pair = 4.0 * 2 * 64;
  const double useful = per_pair * (17 * 17 + 1 + 0 + 100 * 100);
  EXPECT_DOUBLE_EQ(attention_flops(c), useful);
  EXPECT_DOUBLE_EQ(*plan_metric_value(c, "useful_flops"), useful);
  EXPECT_DOUBLE_EQ(executed_flops(c), per_pair * 4 * 100 * 100);  // padded
  EXPECT_EQ(total_tokens(c), 118);
  EXPECT_DOUBLE_EQ(padding_ratio(c), 400.0 / 118.0);
  EXPECT_DOUBLE_EQ(*plan_metric_value(c, "padding_ratio"), 400.0 / 118.0);
  EXPECT_DOUBLE_EQ(*plan_metric_value(c, "total_tokens"), 118);
  // Q, K, V, O of B x T rows (bf16) and the LSE of every row.
  EXPECT_EQ(io_bytes(c), 4 * (400 * 2 * 64 * 2) + 400 * 2 * 4);

  c.causal = true;  // each sequence halved, flash-attention's convention
  EXPECT_DOUBLE_EQ(attention_flops(c), useful / 2);
  EXPECT_DOUBLE_EQ(executed_flops(c), per_pair * 4 * 100 * 100 / 2);

  c.packing = Packing::packed;  // only the real tokens are held and computed
  EXPECT_DOUBLE_EQ(executed_flops(c), useful / 2);
  EXPECT_EQ(io_bytes(c), 4 * (118 * 2 * 64 * 2) + 118 * 2 * 4);
  // fa2's tracked cu_seqlens_q and cu_seqlens_k, 2 * 5 int32 in one allocation.
  EXPECT_EQ(varlen_arrays_bytes(c), 40);
  EXPECT_EQ(predicted_memory(c).predicted_bytes, io_bytes(c) + 40);
  EXPECT_DOUBLE_EQ(padding_ratio(c), 400.0 / 118.0);

  // A dense case: nothing changes.
  Case dense = c;
  dense.lengths.clear();
  EXPECT_DOUBLE_EQ(executed_flops(dense), attention_flops(dense));
  EXPECT_EQ(total_tokens(dense), 400);
  EXPECT_DOUBLE_EQ(padding_ratio(dense), 1.0);
}

TEST(VarlenConfig, ResultsCarryTheLengthsAndReadThemBack) {
  const json lognormal = json::parse(
      R"({"dist": "lognormal", "mean": 7.25, "sigma": 0.5, "min": 0, "max": 4096, "seed": 9})");
  const Config c = parse_config(
      with_grid({{"B", 5}, {"lengths", lognormal}, {"packing", "packed"}, {"causal", true}}),
      "v.json");
  CaseResult r;
  r.c = c.cases[0];
  r.flops = case_flops(r.c);
  const json j = to_json(r);
  EXPECT_EQ(j["params"]["lengths"], json(r.c.lengths));
  EXPECT_EQ(j["params"]["packing"], "packed");
  EXPECT_EQ(j["params"]["lengths_dist"]["dist"], "lognormal");
  EXPECT_EQ(j["params"]["lengths_dist"]["mean"], 7.25);
  EXPECT_EQ(j["varlen"]["total_tokens"], total_tokens(r.c));
  EXPECT_EQ(j["varlen"]["useful_flops"], j["flops"]);
  const Case back = case_result_from_json(j).c;
  EXPECT_EQ(back.id(), r.c.id());
  EXPECT_EQ(back.lengths, r.c.lengths);
  EXPECT_TRUE(back.lengths_source == r.c.lengths_source);
  EXPECT_EQ(back.packing, Packing::packed);

  // A list round-trips too, and a dense case's params have no lengths at all.
  const Config l = parse_config(with_grid({{"lengths", {17, 0, 1}}}), "v.json");
  r.c = l.cases[0];
  EXPECT_EQ(case_result_from_json(to_json(r)).c.id(), r.c.id());
  r.c.lengths.clear();
  const json dense = to_json(r);
  EXPECT_FALSE(dense["params"].contains("lengths"));
  EXPECT_FALSE(dense.contains("varlen"));

  json bad = j;
  bad["params"]["lengths"] = {1, -2, 3, 4, 5};
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
  bad["params"]["lengths"] = {1, 2};  // B = 5
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
  bad = j;
  bad["params"]["packing"] = "squeezed";
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
}

TEST(VarlenConfig, ChecksPairCasesOfTheSameLengthsAndPacking) {
  Case a;
  a.lengths = {3, 4};
  a.B = 2;
  a.T_q = a.T_k = 4;
  Case b = a;
  EXPECT_TRUE(checks::same_shape(a, b));
  b.packing = Packing::packed;
  EXPECT_FALSE(checks::same_shape(a, b));
  b = a;
  b.lengths = {4, 3};  // same B, T and tokens, other sequences
  EXPECT_FALSE(checks::same_shape(a, b));
}

TEST(VarlenConfig, BackendsWithoutThePackingAreAskedNothing) {
  Case c;
  c.backend = "standard";
  c.lengths = {3, 4};
  c.B = 2;
  c.T_q = c.T_k = 4;
  c.packing = Packing::packed;
  const Support s = catalog_varlen_support(c, c.backend);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.reason, "standard does not run packed variable-length batches, only padded ones");
  c.packing = Packing::padded;
  EXPECT_TRUE(catalog_varlen_support(c, c.backend).ok);
  c.backend = "fa2-dev";
  EXPECT_EQ(catalog_varlen_support(c, c.backend).reason,
            "fa2-dev does not run padded variable-length batches");
  c.backend = "cudnn";  // padded (padding mask) and packed (ragged offsets), forward only
  EXPECT_TRUE(catalog_varlen_support(c, c.backend).ok);
  c.packing = Packing::packed;
  EXPECT_TRUE(catalog_varlen_support(c, c.backend).ok);
  c.backend = "fa3";  // packed only: maps of all the tokens
  EXPECT_TRUE(catalog_varlen_support(c, c.backend).ok);
  c.packing = Packing::padded;
  EXPECT_EQ(catalog_varlen_support(c, c.backend).reason,
            "fa3 does not run padded variable-length batches, only packed ones: padded batches "
            "run on fa2");
  c.backend = "standard";
  c.mode = Mode::bwd;
  EXPECT_EQ(catalog_varlen_support(c, c.backend).reason,
            "padded variable-length batches run forward only on standard: it has no "
            "variable-length backward for them (mode bwd)");
  // The CPU target's backends run the backward of both packings, sequence by sequence.
  for (const char* cpu : {"cpu-naive", "cpu-flash"}) {
    for (Packing packing : {Packing::padded, Packing::packed}) {
      c.packing = packing;
      for (Mode m : {Mode::bwd, Mode::fwd_bwd}) {
        c.mode = m;
        EXPECT_TRUE(catalog_varlen_support(c, cpu).ok) << cpu << " " << to_string(packing);
      }
    }
  }
  c.backend = "fa3";  // its forward takes packed batches, its backward none yet
  c.packing = Packing::packed;
  EXPECT_NE(catalog_varlen_support(c, c.backend).reason.find("forward only on fa3"),
            std::string::npos);
  c.packing = Packing::padded;  // the forward's rule first
  EXPECT_NE(catalog_varlen_support(c, c.backend).reason.find("does not run padded"),
            std::string::npos);
  c.lengths.clear();
  EXPECT_TRUE(catalog_varlen_support(c, c.backend).ok);
}

}  // namespace
}  // namespace fa2b
