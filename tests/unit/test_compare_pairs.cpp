// SPDX-License-Identifier: Apache-2.0
// fa2bench compare --pair: two backends matched by shape (from two files or one), per-pair and
// per-head-dim geomeans, cases on one side only, --pair errors, and every output format.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "compare_fixtures.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

const std::string kData = std::string(FA2BENCH_SOURCE_DIR) + "/tests/data/compare/";

// One ok case (p10-p90 = median ± 2%) of `backend` on B1-H8-T<T>-D<D>/fp16/causal.
CaseResult timed(const std::string& backend, std::int64_t T, std::int64_t D, double median,
                 Status status = Status::ok) {
  return crafted_case(backend, T, D, median, 0.02, status, T * D * 100);
}

ResultSet run_of(std::vector<CaseResult> cases) {
  ResultSet rs;
  rs.device = {{"kind", "cuda"}, {"name", "NVIDIA H200"}};
  rs.tool = {{"version", "0.1.0"}};
  rs.target = "cuda";
  rs.config_path = "c.json";
  rs.config_sha256 = "aaaa";
  rs.cases = std::move(cases);
  return rs;
}

CompareOptions with_pairs(std::vector<BackendPair> pairs) {
  CompareOptions o;
  o.pairs = std::move(pairs);
  return o;
}

// PyTorch's side (BASE) and ours (NEW) on four shapes, D 64 and 128. fa2 / torch-flash time:
// 0.5 and 0.8 at D=64, 1.0 and 1.21 at D=128; torch-cudnn takes fa2's time exactly.
ResultSet peer_run() {
  return run_of({timed("torch-flash", 64, 64, 2.0), timed("torch-cudnn", 64, 64, 1.0),
                 timed("torch-flash", 128, 64, 5.0), timed("torch-cudnn", 128, 64, 4.0),
                 timed("torch-flash", 64, 128, 3.0), timed("torch-cudnn", 64, 128, 3.0),
                 timed("torch-flash", 128, 128, 10.0), timed("torch-cudnn", 128, 128, 12.1)});
}
ResultSet our_run() {
  return run_of({timed("fa2", 64, 64, 1.0), timed("fa2", 128, 64, 4.0), timed("fa2", 64, 128, 3.0),
                 timed("fa2", 128, 128, 12.1)});
}

const BackendPair kFlash{"fa2", "torch-flash"};
const BackendPair kCudnn{"fa2", "torch-cudnn"};

TEST(ComparePairs, MatchesTwoBackendsByShape) {
  const Comparison c =
      compare_results(peer_run(), "peer.json", our_run(), "ours.json", with_pairs({kFlash}));
  ASSERT_EQ(c.cases.size(), 4u);
  EXPECT_EQ(c.cases[0].id, "fa2=torch-flash/B1-H8-T64-D64/fp16/causal");
  for (const CaseComparison& cc : c.cases) {
    EXPECT_EQ(cc.new_backend, "fa2");
    EXPECT_EQ(cc.backend, "torch-flash");
    EXPECT_EQ(cc.next.c.shape_key(), cc.base.c.shape_key());
  }
  EXPECT_NEAR(c.cases[0].time_ratio, 0.5, 1e-12);
  EXPECT_NEAR(c.cases[0].tflops_ratio, 2.0, 1e-9);  // the speedup of fa2 over torch-flash
  EXPECT_EQ(c.cases[0].verdict, "faster");
  EXPECT_EQ(c.cases[2].verdict, "same");
  EXPECT_EQ(c.cases[3].verdict, "slower");  // +21%, intervals disjoint
  EXPECT_NEAR(c.cases[3].time_ratio, 1.21, 1e-12);
  EXPECT_EQ(c.counts.faster, 2);
  EXPECT_EQ(c.counts.same, 1);
  EXPECT_EQ(c.counts.slower, 1);
  EXPECT_TRUE(c.has_regression());
  // torch-cudnn is not in the pair: neither compared nor listed as one-sided.
  EXPECT_TRUE(c.only_base.empty());
  EXPECT_TRUE(c.only_new.empty());
}

TEST(ComparePairs, GeomeanPerPairAndHeadDimThenAllDims) {
  const Comparison c = compare_results(peer_run(), "peer.json", our_run(), "ours.json",
                                       with_pairs({kFlash, kCudnn}));
  ASSERT_EQ(c.cases.size(), 8u);
  EXPECT_EQ(c.cases[4].backend, "torch-cudnn");  // the pairs in the order given
  ASSERT_EQ(c.geomean.size(), 6u);
  const GeomeanRow& d64 = c.geomean[0];
  EXPECT_EQ(d64.new_backend, "fa2");
  EXPECT_EQ(d64.backend, "torch-flash");
  EXPECT_EQ(d64.D, 64);
  EXPECT_EQ(d64.n, 2);
  EXPECT_NEAR(d64.time_ratio, std::sqrt(0.5 * 0.8), 1e-12);
  EXPECT_NEAR(d64.tflops_ratio, 1 / std::sqrt(0.5 * 0.8), 1e-9);
  EXPECT_EQ(c.geomean[1].D, 128);
  EXPECT_NEAR(c.geomean[1].time_ratio, 1.1, 1e-12);  // sqrt(1.0 * 1.21)
  const GeomeanRow& all = c.geomean[2];
  EXPECT_EQ(all.D, 0);
  EXPECT_EQ(all.n, 4);
  EXPECT_NEAR(all.time_ratio, std::pow(0.5 * 0.8 * 1.0 * 1.21, 0.25), 1e-12);
  for (std::size_t i = 3; i < 6; ++i) {
    EXPECT_EQ(c.geomean[i].backend, "torch-cudnn");
    EXPECT_NEAR(c.geomean[i].time_ratio, 1.0, 1e-12);
  }
  EXPECT_EQ(c.geomean[5].n, 4);
}

TEST(ComparePairs, PairsInsideOneFile) {
  ResultSet both = peer_run();
  for (const CaseResult& r : our_run().cases) both.cases.push_back(r);
  both.cases.push_back(timed("naive", 64, 64, 9.0));  // in no pair: ignored
  both.cases.push_back(timed("fa2", 64, 64, 7.0));    // a duplicate id: reported once
  const Comparison c =
      compare_results(both, "r.json", both, "r.json", with_pairs({kFlash, kCudnn}));
  ASSERT_EQ(c.cases.size(), 8u);
  EXPECT_NEAR(c.cases[0].time_ratio, 0.5, 1e-12);  // the first fa2 case, not the duplicate
  EXPECT_TRUE(c.only_base.empty());
  EXPECT_TRUE(c.only_new.empty());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("duplicate case id fa2/B1-H8-T64-D64"), std::string::npos);
}

TEST(ComparePairs, EveryShapeFieldMustAgree) {
  const CaseResult ours = timed("fa2", 64, 64, 1.0);
  std::vector<CaseResult> peers;
  auto variant = [&](auto change) {
    CaseResult r = timed("peer", 64, 64, 1.0);
    change(r.c);
    peers.push_back(r);
  };
  variant([](Case& c) { c.B = 2; });
  variant([](Case& c) { c.H = 16; });
  variant([](Case& c) { c.H_kv = 2; });
  variant([](Case& c) { c.T_q = 32; });
  variant([](Case& c) { c.T_k = 128; });
  variant([](Case& c) { c.D = 128; });
  variant([](Case& c) { c.dtype = DType::bf16; });
  variant([](Case& c) { c.causal = false; });
  variant([](Case& c) { c.layout = Layout::bshd; });
  const std::size_t n_variants = peers.size();
  const Comparison none =
      compare_results(run_of(peers), "p", run_of({ours}), "o", with_pairs({{"fa2", "peer"}}));
  EXPECT_TRUE(none.cases.empty());
  EXPECT_EQ(none.only_base.size(), n_variants);
  EXPECT_EQ(none.only_new.size(), 1u);
  // The same shape as ours, in another sweep: matched.
  peers.push_back(timed("peer", 64, 64, 1.0));
  peers.back().c.sweep = "other";
  const Comparison one =
      compare_results(run_of(peers), "p", run_of({ours}), "o", with_pairs({{"fa2", "peer"}}));
  ASSERT_EQ(one.cases.size(), 1u);
  EXPECT_EQ(one.cases[0].base.c.sweep, "other");
}

TEST(ComparePairs, OneSidedShapesNameTheMissingPartner) {
  ResultSet peer = peer_run();
  peer.cases.push_back(timed("torch-flash", 256, 128, 20.0));  // no fa2 case of this shape
  ResultSet ours = our_run();
  ours.cases.push_back(timed("fa2", 64, 256, 2.0));  // no peer case of this shape
  const Comparison c =
      compare_results(peer, "peer.json", ours, "ours.json", with_pairs({kFlash, kCudnn}));
  EXPECT_EQ(c.cases.size(), 8u);
  ASSERT_EQ(c.only_base.size(), 1u);
  EXPECT_EQ(c.only_base[0], "torch-flash/B1-H8-T256-D128/fp16/causal");
  EXPECT_EQ(c.only_base_partner, std::vector<std::string>{"fa2"});
  // One-sided in both pairs: listed once per pair, each naming the backend that lacks it.
  EXPECT_EQ(c.only_new, std::vector<std::string>(2, "fa2/B1-H8-T64-D256/fp16/causal"));
  EXPECT_EQ(c.only_new_partner, (std::vector<std::string>{"torch-flash", "torch-cudnn"}));
  EXPECT_EQ(c.counts.faster + c.counts.same + c.counts.slower, 8);
}

TEST(ComparePairs, NotOkWhereTheBaseBackendIsOkIsARegression) {
  const Comparison c = compare_results(run_of({timed("torch-flash", 64, 64, 1.0)}), "p",
                                       run_of({timed("fa2", 64, 64, 0, Status::unsupported)}), "o",
                                       with_pairs({kFlash}));
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].verdict, "ok→unsupported");
  EXPECT_TRUE(c.has_regression());
  ASSERT_EQ(c.geomean.size(), 2u);  // D=64 and all, without a ratio
  EXPECT_EQ(c.geomean[1].n, 0);
}

TEST(ComparePairs, WithoutPairsMatchingIsByIdAsBefore) {
  // fa2 and torch-flash on one shape: without --pair they are different cases.
  const Comparison c = compare_results(run_of({timed("torch-flash", 64, 64, 1.0)}), "p",
                                       run_of({timed("fa2", 64, 64, 1.0)}), "o", {});
  EXPECT_TRUE(c.cases.empty());
  EXPECT_EQ(c.only_base.size(), 1u);
  EXPECT_TRUE(c.only_base_partner.empty());
  EXPECT_EQ(compare_csv_text(c).rfind("id,backend,shape,", 0), 0u);
  const auto j = compare_json(c);
  EXPECT_FALSE(j.contains("pairs"));
  EXPECT_TRUE(j["only_base"][0].is_string());
}

// The message of the CompareError that parse_backend_pairs throws; "" when none.
std::string pair_error(const std::vector<std::string>& values,
                       const std::string& base_file = "peer.json",
                       const std::string& new_file = "ours.json") {
  try {
    parse_backend_pairs(values, peer_run(), base_file, our_run(), new_file);
  } catch (const CompareError& e) {
    return e.what();
  }
  return "";
}

TEST(ParseBackendPairs, ValidValuesInOrderWithoutRepeats) {
  const std::vector<BackendPair> pairs = parse_backend_pairs(
      {"fa2=torch-flash", "fa2=torch-cudnn", "fa2=torch-flash"}, peer_run(), "p", our_run(), "o");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0], kFlash);
  EXPECT_EQ(pairs[1], kCudnn);
  EXPECT_EQ(pairs[0].key(), "fa2=torch-flash");
  EXPECT_EQ(pairs[0].label(), "fa2 vs torch-flash");
  EXPECT_TRUE(parse_backend_pairs({}, peer_run(), "p", our_run(), "o").empty());
}

TEST(ParseBackendPairs, MalformedValuesNameTheValueAndTheBackends) {
  const std::string have =
      "backends in NEW ours.json: fa2; in BASE peer.json: torch-flash, torch-cudnn";
  for (const auto& [value, what] :
       std::vector<std::pair<std::string, std::string>>{{"fa2", "no '='"},
                                                        {"", "no '='"},
                                                        {"=torch-flash", "empty NEW_BACKEND"},
                                                        {"fa2=", "empty BASE_BACKEND"},
                                                        {"fa2=torch=flash", "more than one '='"}}) {
    const std::string e = pair_error({"fa2=torch-flash", value});
    EXPECT_EQ(e.rfind("--pair \"" + value + "\": " + what, 0), 0u) << e;
    EXPECT_NE(e.find(have), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(ParseBackendPairs, UnknownBackendNamesItsSideAndWhatTheFilesHave) {
  const std::string base = pair_error({"fa2=torch-flsh"});
  EXPECT_NE(base.find("--pair \"fa2=torch-flsh\": no backend \"torch-flsh\" in BASE peer.json"),
            std::string::npos)
      << base;
  EXPECT_NE(base.find("in BASE peer.json: torch-flash, torch-cudnn"), std::string::npos) << base;
  const std::string next = pair_error({"cudnn=torch-flash"});
  EXPECT_NE(next.find("no backend \"cudnn\" in NEW ours.json"), std::string::npos) << next;
  // The files given the other way round: each backend is in the other file.
  const std::string swapped = pair_error({"torch-flash=fa2"});
  EXPECT_NE(swapped.find("are BASE and NEW swapped?"), std::string::npos) << swapped;
  // One file on both sides: named once.
  const std::string same = pair_error({"fa2=cudnn"}, "r.json", "r.json");
  EXPECT_NE(same.find("; backends in r.json: "), std::string::npos) << same;
}

TEST(ComparePairs, FormatsCarryThePair) {
  ResultSet peer = peer_run();
  peer.cases.push_back(timed("torch-flash", 256, 128, 20.0));
  const Comparison c =
      compare_results(peer, "peer.json", our_run(), "ours.json", with_pairs({kFlash, kCudnn}));

  const std::string table = compare_table_text(c);
  EXPECT_NE(table.find("new backend  base backend  shape"), std::string::npos) << table;
  EXPECT_NE(table.find("pairs (NEW backend vs BASE backend, matched by shape"), std::string::npos);
  EXPECT_NE(table.find("fa2 vs torch-flash  128      2  1.100x"), std::string::npos) << table;
  EXPECT_NE(table.find("fa2 vs torch-flash  all      4"), std::string::npos) << table;
  EXPECT_NE(table.find("only in BASE: torch-flash/B1-H8-T256-D128/fp16/causal (no fa2 case of "
                       "this shape)"),
            std::string::npos)
      << table;

  const std::string md = compare_md_text(c);
  EXPECT_NE(md.find("| new backend | base backend | shape |"), std::string::npos) << md;
  EXPECT_NE(md.find("|---|---|---|--:|"), std::string::npos) << md;
  EXPECT_NE(md.find("| fa2 | torch-flash | B1-H8-T64-D64/fp16/causal |"), std::string::npos);
  EXPECT_NE(md.find("### Geometric mean per pair and head dim"), std::string::npos);
  EXPECT_NE(md.find("| fa2 vs torch-flash | 64 | 2 | 0.632x | 1.581x |"), std::string::npos) << md;
  EXPECT_NE(md.find("| fa2 vs torch-cudnn | all | 4 | 1.000x | 1.000x |"), std::string::npos);
  EXPECT_NE(md.find("### Cases on one side only"), std::string::npos);

  const std::string csv = compare_csv_text(c);
  EXPECT_EQ(csv.rfind("id,new_backend,base_backend,shape,verdict,", 0), 0u) << csv;
  EXPECT_NE(csv.find("\nfa2=torch-cudnn/B1-H8-T128-D128/fp16/causal,fa2,torch-cudnn,"
                     "B1-H8-T128-D128/fp16/causal,same,false,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\ntorch-flash/B1-H8-T256-D128/fp16/causal,fa2,torch-flash,"
                     "B1-H8-T256-D128/fp16/causal,only_base,false,"),
            std::string::npos)
      << csv;
  // Every row has as many fields as the header.
  const auto fields = [](const std::string& line) {
    return std::count(line.begin(), line.end(), ',');
  };
  const std::string header = csv.substr(0, csv.find('\n'));
  const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
  EXPECT_EQ(fields(header), fields(last));

  const auto j = compare_json(c);
  ASSERT_EQ(j["pairs"].size(), 2u);
  EXPECT_EQ(j["pairs"][0]["new"], "fa2");
  EXPECT_EQ(j["pairs"][0]["base"], "torch-flash");
  EXPECT_EQ(j["cases"][0]["new_backend"], "fa2");
  EXPECT_EQ(j["cases"][0]["base_backend"], "torch-flash");
  EXPECT_FALSE(j["cases"][0].contains("backend"));
  EXPECT_EQ(j["geomean"][0]["D"], 64);
  EXPECT_TRUE(j["geomean"][2]["D"].is_null());  // every head dim
  EXPECT_EQ(j["only_base"][0]["id"], "torch-flash/B1-H8-T256-D128/fp16/causal");
  EXPECT_EQ(j["only_base"][0]["new_backend"], "fa2");

  const std::string junit = compare_junit_text(c);
  EXPECT_NE(junit.find("classname=\"fa2bench.compare.fa2=torch-flash\" "
                       "name=\"B1-H8-T128-D128/fp16/causal\""),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("BASE torch-flash in peer.json\nNEW fa2 in ours.json"), std::string::npos)
      << junit;
  // The shape only in BASE (torch-flash T256) fails as a testcase of its own (issue 13).
  EXPECT_NE(junit.find("tests=\"9\" failures=\"2\""), std::string::npos) << junit;

  const std::string summary = compare_summary_md_text(c);
  EXPECT_EQ(summary.rfind("### ❌ fa2bench compare: 1 regression, 1 more failing (fa2 vs "
                          "torch-flash, fa2 vs torch-cudnn; ours.json vs peer.json)",
                          0),
            0u)
      << summary;
  EXPECT_NE(summary.find("- `fa2=torch-flash/B1-H8-T128-D128/fp16/causal`: slower"),
            std::string::npos)
      << summary;
}

TEST(ComparePairs, CraftedFilesOneRunAndTwo) {
  const ResultSet peer = load_results(kData + "pair_peer.json");
  const ResultSet ours = load_results(kData + "pair_ours.json");
  const ResultSet both = load_results(kData + "pair_both.json");
  const CompareOptions options = with_pairs({kFlash, kCudnn});
  const Comparison two = compare_results(peer, "pair_peer.json", ours, "pair_ours.json", options);
  const Comparison one = compare_results(both, "pair_both.json", both, "pair_both.json", options);
  for (const Comparison* c : {&two, &one}) {
    EXPECT_EQ(c->cases.size(), 8u);
    EXPECT_EQ(c->counts.slower, 1);
    EXPECT_EQ(c->only_base, std::vector<std::string>{"torch-flash/B1-H32-T8192-D128/fp16/causal"});
    EXPECT_EQ(c->only_new.size(), 2u);
    ASSERT_EQ(c->geomean.size(), 6u);
    EXPECT_NEAR(c->geomean[2].time_ratio, std::pow(0.5 * 0.8 * 1.0 * 1.21, 0.25), 1e-12);
  }
}

}  // namespace
}  // namespace fa2b
