// SPDX-License-Identifier: Apache-2.0
// The kv_layout and page_size axes of configs: defaults, ids, the exit-2 messages for bad values
// (each naming its JSON pointer), paged with lengths, selectors, the params in results files
// (and their loader), the seeded page table, and which backends the catalog lets run one.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "config/config.h"
#include "config_errors.h"
#include "core/paged_kv.h"
#include "core/shape_algebra.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

using test_config::errors_of;
using test_config::has_error;

using json = nlohmann::json;

json with_grid(const json& grid) {
  json j = json::parse(R"({
    "name": "p",
    "defaults": {"H": 4, "H_kv": 2, "D": 64, "T_q": 4, "T_k": 1000},
    "sweeps": [{"name": "s", "backends": ["naive", "fa2"]}]
  })");
  if (!grid.empty()) j["sweeps"][0]["grid"] = grid;
  return j;
}

TEST(PagedConfig, ContiguousIsTheDefaultAndKeepsIds) {
  const Config c = parse_config(with_grid(json::object()), "p.json");
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_FALSE(c.cases[0].paged());
  EXPECT_EQ(c.cases[0].page_size, 0);
  EXPECT_EQ(c.cases[0].id(), "naive/B1-H4-Hkv2-Tq4-Tk1000-D64/fp16/full");
  const Config explicit_contiguous =
      parse_config(with_grid({{"kv_layout", "contiguous"}}), "p.json");
  EXPECT_EQ(explicit_contiguous.cases[0].id(), c.cases[0].id());
}

TEST(PagedConfig, PagedDefaultsTo64AndTagsTheId) {
  const Config c = parse_config(with_grid({{"kv_layout", "paged"}, {"causal", true}}), "p.json");
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_TRUE(c.cases[0].paged());
  EXPECT_EQ(c.cases[0].page_size, kDefaultPageSize);
  EXPECT_EQ(c.cases[0].id(), "naive/B1-H4-Hkv2-Tq4-Tk1000-D64/fp16/causal/paged64");
  const Config sizes = parse_config(
      with_grid({{"kv_layout", "paged"}, {"page_size", {16, 256}}, {"layout", "bshd"}}), "p.json");
  ASSERT_EQ(sizes.cases.size(), 4u);
  EXPECT_EQ(sizes.cases[0].id(), "naive/B1-H4-Hkv2-Tq4-Tk1000-D64/fp16/full/paged16/bshd");
  EXPECT_EQ(sizes.cases[3].id(), "fa2/B1-H4-Hkv2-Tq4-Tk1000-D64/fp16/full/paged256/bshd");
}

TEST(PagedConfig, BadPageSizesExitTwoNamingTheField) {
  EXPECT_TRUE(has_error(with_grid({{"kv_layout", "paged"}, {"page_size", 100}}),
                        "/sweeps/0/grid/page_size: page_size 100 is not a power of two; give a "
                        "power of two from 1 to 256"));
  EXPECT_TRUE(has_error(with_grid({{"kv_layout", "paged"}, {"page_size", {16, 0}}}),
                        "/sweeps/0/grid/page_size/1: page_size 0 is out of range"));
  EXPECT_TRUE(has_error(with_grid({{"kv_layout", "paged"}, {"page_size", {1, 12}}}),
                        "/sweeps/0/grid/page_size/1: page_size 12 is not a power of two"));
  EXPECT_TRUE(has_error(with_grid({{"kv_layout", "paged"}, {"page_size", 512}}),
                        "/sweeps/0/grid/page_size: page_size 512 is out of range"));
  EXPECT_TRUE(has_error(with_grid({{"kv_layout", "paged"}, {"page_size", "64"}}),
                        "/sweeps/0/grid/page_size: expected page_size as a power of two"));
  EXPECT_TRUE(has_error(with_grid({{"kv_layout", "blocked"}}),
                        "/sweeps/0/grid/kv_layout: unknown kv_layout \"blocked\""));
}

TEST(PagedConfig, PageSizeWithContiguousIsRefused) {
  EXPECT_TRUE(has_error(with_grid({{"page_size", 64}}),
                        "/sweeps/0/grid/page_size: page_size 64 with kv_layout \"contiguous\""));
  // Both layouts in one grid with page sizes would multiply the contiguous cases: refused too.
  EXPECT_TRUE(
      has_error(with_grid({{"kv_layout", {"contiguous", "paged"}}, {"page_size", {16, 256}}}),
                "page_size 16 with kv_layout \"contiguous\""));
  // ... unless where/exclude drop the contiguous points with a page size (then none are left).
  json j = with_grid({{"kv_layout", {"contiguous", "paged"}}, {"page_size", {16, 256}}});
  j["sweeps"][0]["where"] = json::parse(R"([{"kv_layout": "paged"}])");
  EXPECT_EQ(parse_config(j, "p.json").cases.size(), 4u);
}

TEST(PagedConfig, PagedWithLengthsIsRefusedNamingBoth) {
  json j = with_grid({{"kv_layout", "paged"}, {"lengths", json::parse("[[17, 1, 4]]")}});
  j["defaults"].erase("T_q");
  j["defaults"].erase("T_k");
  EXPECT_TRUE(has_error(j,
                        "/sweeps/0/grid/kv_layout: kv_layout \"paged\" with lengths (given "
                        "at /sweeps/0/grid/lengths): a paged KV cache is built for dense "
                        "batches only"));
}

TEST(PagedConfig, SelectorsMatchLayoutAndPageSize) {
  json j = with_grid({{"kv_layout", "paged"}, {"page_size", {16, 64, 256}}});
  j["sweeps"][0]["exclude"] = json::parse(R"([{"page_size": 64}])");
  const Config c = parse_config(j, "p.json");
  ASSERT_EQ(c.cases.size(), 4u);
  for (const Case& k : c.cases) EXPECT_NE(k.page_size, 64);
  j["checks"] = json::parse(R"([{"name": "paged", "kind": "threshold", "metric": "max_abs_err",
    "select": {"backend": "fa2", "kv_layout": "paged", "page_size": [16, 256]},
    "op": "<", "value": 1e-2}])");
  EXPECT_TRUE(errors_of(j).empty());
  Selector s;
  s.match["kv_layout"] = {json("contiguous")};
  EXPECT_FALSE(s.matches(c.cases[0]));
  s.match["kv_layout"] = {json("paged")};
  s.match["page_size"] = {json(16)};
  // The backends are innermost: naive and fa2 at 16, then both at 256.
  EXPECT_TRUE(s.matches(c.cases[1]));
  EXPECT_FALSE(s.matches(c.cases[2]));
}

TEST(PagedConfig, ResultsCarryTheLayoutAndReadItBack) {
  const Config c = parse_config(with_grid({{"kv_layout", "paged"}, {"page_size", 16}}), "p.json");
  CaseResult r;
  r.c = c.cases[0];
  const json j = to_json(r);
  EXPECT_EQ(j["params"]["kv_layout"], "paged");
  EXPECT_EQ(j["params"]["page_size"], 16);
  const Case back = case_result_from_json(j).c;
  EXPECT_TRUE(back.paged());
  EXPECT_EQ(back.page_size, 16);
  EXPECT_EQ(back.id(), r.c.id());
  // A contiguous case's params stay as they were (no key), and read back as contiguous.
  r.c.kv_layout = KvLayout::contiguous;
  r.c.page_size = 0;
  const json plain = to_json(r);
  EXPECT_FALSE(plain["params"].contains("kv_layout"));
  EXPECT_FALSE(case_result_from_json(plain).c.paged());
  json bad = j;
  bad["params"]["page_size"] = 100;
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
  bad["params"].erase("page_size");
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
  bad["params"]["kv_layout"] = "blocked";
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
}

TEST(PagedKv, PageTableIsASeededPermutation) {
  Case c;
  c.B = 3;
  c.T_k = 1000;
  c.kv_layout = KvLayout::paged;
  c.page_size = 16;
  EXPECT_EQ(pages_per_seq(c), 63);  // the last page holds 1000 - 62 * 16 = 8 tokens
  EXPECT_EQ(num_pages(c), 189);
  const std::vector<std::int32_t> t = page_table(c);
  ASSERT_EQ(t.size(), 189u);
  std::vector<std::int32_t> sorted = t;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], static_cast<int>(i));
  EXPECT_EQ(page_table(c), t);  // the same seed draws the same table
  int in_place = 0;
  for (std::size_t i = 0; i < t.size(); ++i) in_place += t[i] == static_cast<int>(i);
  EXPECT_LT(in_place, 10);  // shuffled, not the identity
  c.measure.seed += 1;
  EXPECT_NE(page_table(c), t);
  // A page larger than T_k: one page per sequence.
  c.page_size = 256;
  c.T_k = 17;
  EXPECT_EQ(pages_per_seq(c), 1);
  EXPECT_EQ(num_pages(c), 3);
}

TEST(PagedKv, OnlyTheCatalogsPagedBackendsRunItForwardOnly) {
  Case c;
  c.kv_layout = KvLayout::paged;
  c.page_size = 64;
  for (const char* gpu : {"naive", "standard", "fa3", "cudnn"}) {
    const Support s = catalog_paged_support(c, gpu);
    EXPECT_FALSE(s.ok) << gpu;
    EXPECT_EQ(s.reason, std::string("paged KV layout: not built for ") + gpu + " yet");
  }
  // fa2 reads pages in its decode kernels (its own supports() has the finer rules).
  EXPECT_TRUE(catalog_paged_support(c, "fa2").ok);
  // The catalog's paged_kv is the one list: every other CUDA entry (the dev variants too)
  // refuses a paged case with its name in the reason, the CPU target reads one.
  int cuda = 0;
  for (const BackendEntry& e : backend_catalog()) {
    const Support s = catalog_paged_support(c, e.name);
    EXPECT_EQ(s.ok, e.paged_kv) << e.name;
    if (e.device == BackendDevice::cuda && e.name != "fa2") {
      ++cuda;
      EXPECT_EQ(s.reason, "paged KV layout: not built for " + e.name + " yet");
    }
  }
  EXPECT_GE(cuda, 6);
  EXPECT_TRUE(catalog_paged_support(c, "cpu-naive").ok);
  EXPECT_TRUE(catalog_paged_support(c, "cpu-flash").ok);
  c.mode = Mode::fwd_bwd;
  EXPECT_NE(catalog_paged_support(c, "fa2").reason.find("forward only"), std::string::npos);
  EXPECT_NE(catalog_paged_support(c, "cpu-flash").reason.find("forward only"), std::string::npos);
  c.mode = Mode::fwd;
  c.kv_layout = KvLayout::contiguous;
  c.page_size = 0;
  EXPECT_TRUE(catalog_paged_support(c, "fa2").ok);
}

TEST(PagedPlan, PredictedBytesCountThePoolsAndTheTableInsteadOfKAndV) {
  Case c;
  c.backend = c.role = "cpu-flash";
  c.B = 3;
  c.H = 8;
  c.H_kv = 2;
  c.T_q = 4;
  c.T_k = 1000;
  c.D = 40;
  c.dtype = DType::bf16;
  Case paged = c;
  paged.kv_layout = KvLayout::paged;
  paged.page_size = 256;
  // 4 pages of 256 rows per sequence (the last holds 232 of them), 12 pages in the pool.
  const std::int64_t pool = 12 * 256 * 2 * 40 * 2, table = 12 * 4;
  const std::int64_t kv = 2 * 3 * 2 * 1000 * 40 * 2;
  EXPECT_EQ(page_pool_bytes(paged), pool);
  EXPECT_EQ(page_table_bytes(paged), table);
  EXPECT_EQ(io_bytes(paged) - io_bytes(c), 2 * pool + table - kv);
  EXPECT_EQ(predicted_memory(paged).predicted_bytes - predicted_memory(c).predicted_bytes,
            2 * pool + table - kv);
  EXPECT_EQ(*plan_metric_value(paged, "page_pool_bytes"), 2.0 * pool);
  EXPECT_EQ(*plan_metric_value(paged, "page_table_bytes"), 1.0 * table);
  EXPECT_EQ(*plan_metric_value(c, "page_pool_bytes"), 0.0);
  EXPECT_EQ(*plan_metric_value(c, "page_table_bytes"), 0.0);
  // A materialising backend adds its scores on top, the same for both layouts.
  c.backend = paged.backend = "cpu-naive";
  EXPECT_EQ(predicted_memory(paged).predicted_bytes - predicted_memory(c).predicted_bytes,
            2 * pool + table - kv);
  // Pages of 16 divide 1008 rows out of 1000: 63 per sequence.
  paged.page_size = 16;
  EXPECT_EQ(page_pool_bytes(paged), 3 * 63 * 16 * 2 * 40 * 2);
}

}  // namespace
}  // namespace fa2b
