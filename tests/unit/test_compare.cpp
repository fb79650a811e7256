// SPDX-License-Identifier: Apache-2.0
// fa2bench compare: verdict rules, matching, geomeans, normalization, formats, loading.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "compare/compare.h"
#include "compare_fixtures.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

const std::string kData = std::string(FA2BENCH_SOURCE_DIR) + "/tests/data/compare/";

CaseResult timed(const std::string& backend, std::int64_t T, double median, double spread = 0.02,
                 Status status = Status::ok) {
  return crafted_case(backend, T, 64, median, spread, status, T * 1000);
}

ResultSet run_of(std::vector<CaseResult> cases, const std::string& device = "NVIDIA H200",
                 const std::string& sha = "aaaa") {
  ResultSet rs;
  rs.device = {{"kind", "cuda"}, {"name", device}};
  rs.tool = {{"version", "0.1.0"}};
  rs.target = "cuda";
  rs.config_path = "c.json";
  rs.config_sha256 = sha;
  rs.cases = std::move(cases);
  return rs;
}

TEST(CompareVerdict, NoiseWithinThresholdIsSame) {
  const ChangeVerdict v = judge_change(timed("fa2", 64, 1.0), timed("fa2", 64, 1.03), 0.05);
  EXPECT_EQ(v.kind, ChangeKind::same);
  EXPECT_EQ(v.text, "same");
  EXPECT_FALSE(v.regression);
  EXPECT_NEAR(v.rel_change, 0.03, 1e-12);
}

TEST(CompareVerdict, WithinThresholdIsSameEvenWithDisjointIntervals) {
  // Very tight spreads: intervals disjoint, but the change is below the threshold.
  const ChangeVerdict v =
      judge_change(timed("fa2", 64, 1.0, 0.001), timed("fa2", 64, 1.04, 0.001), 0.05);
  EXPECT_FALSE(v.intervals_overlap);
  EXPECT_EQ(v.kind, ChangeKind::same);
}

TEST(CompareVerdict, BeyondThresholdDisjointIsSlowerOrFaster) {
  const ChangeVerdict slower = judge_change(timed("fa2", 64, 1.0), timed("fa2", 64, 1.2), 0.05);
  EXPECT_EQ(slower.kind, ChangeKind::slower);
  EXPECT_TRUE(slower.regression);
  EXPECT_FALSE(slower.intervals_overlap);
  const ChangeVerdict faster = judge_change(timed("fa2", 64, 1.0), timed("fa2", 64, 0.8), 0.05);
  EXPECT_EQ(faster.kind, ChangeKind::faster);
  EXPECT_FALSE(faster.regression);
}

TEST(CompareVerdict, BeyondThresholdOverlappingIsAmbiguous) {
  const ChangeVerdict v =
      judge_change(timed("fa2", 64, 1.0, 0.15), timed("fa2", 64, 1.12, 0.15), 0.05);
  EXPECT_TRUE(v.intervals_overlap);
  EXPECT_EQ(v.kind, ChangeKind::ambiguous);
  EXPECT_FALSE(v.regression);
}

TEST(CompareVerdict, ThresholdIsRespected) {
  // +12%: slower at 5%, same at 15%.
  EXPECT_EQ(judge_change(timed("a", 64, 1.0), timed("a", 64, 1.12), 0.05).kind, ChangeKind::slower);
  EXPECT_EQ(judge_change(timed("a", 64, 1.0), timed("a", 64, 1.12), 0.15).kind, ChangeKind::same);
}

TEST(CompareVerdict, StatusChangesAreNamedAndOkToNotOkRegresses) {
  const CaseResult ok = timed("naive", 64, 1.0);
  const CaseResult oom = timed("naive", 64, 0, 0, Status::oom);
  const ChangeVerdict lost = judge_change(ok, oom, 0.05);
  EXPECT_EQ(lost.kind, ChangeKind::status);
  EXPECT_EQ(lost.text, "ok→oom");
  EXPECT_TRUE(lost.regression);
  const ChangeVerdict fixed = judge_change(oom, ok, 0.05);
  EXPECT_EQ(fixed.text, "oom→ok");
  EXPECT_FALSE(fixed.regression);
  const ChangeVerdict still = judge_change(oom, timed("naive", 64, 0, 0, Status::error), 0.05);
  EXPECT_EQ(still.text, "oom→error");
  EXPECT_FALSE(still.regression);
}

TEST(CompareResults, MatchesByIdListsMissingAndComputesRatios) {
  const ResultSet base = run_of({timed("fa2", 64, 1.0), timed("fa2", 128, 2.0),
                                 timed("naive", 64, 3.0), timed("naive", 256, 9.0)});
  ResultSet next = run_of({timed("naive", 64, 1.5), timed("fa2", 128, 2.0), timed("fa2", 64, 1.0),
                           timed("fa2", 512, 5.0)});
  next.cases[1].memory.peak_bytes *= 2;
  const Comparison c = compare_results(base, "base.json", next, "new.json", {});
  ASSERT_EQ(c.cases.size(), 3u);
  EXPECT_EQ(c.cases[0].id, timed("fa2", 64, 1).c.id());  // BASE order
  EXPECT_EQ(c.cases[2].verdict, "faster");
  EXPECT_NEAR(c.cases[2].time_ratio, 0.5, 1e-12);
  EXPECT_NEAR(c.cases[2].tflops_ratio, 2.0, 1e-9);
  EXPECT_NEAR(c.cases[1].peak_ratio, 2.0, 1e-12);
  ASSERT_EQ(c.only_base.size(), 1u);
  EXPECT_EQ(c.only_base[0], timed("naive", 256, 1).c.id());
  ASSERT_EQ(c.only_new.size(), 1u);
  EXPECT_EQ(c.only_new[0], timed("fa2", 512, 1).c.id());
  EXPECT_EQ(c.counts.same, 2);
  EXPECT_EQ(c.counts.faster, 1);
  // Issue 13: a case only in BASE fails --fail-on-regression (it was silently passed), and
  // the failure names it; --allow-missing accepts it.
  EXPECT_TRUE(c.has_regression());
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_NE(c.failures[0].find("only in BASE (missing in NEW): " + c.only_base[0]),
            std::string::npos)
      << c.failures[0];
  CompareOptions allow;
  allow.allow_missing = true;
  EXPECT_FALSE(compare_results(base, "base.json", next, "new.json", allow).has_regression());
  EXPECT_TRUE(c.warnings.empty());
}

TEST(CompareResults, SameNotOkStatusIsNotCountedAsAChange) {
  // oom in both runs (a shape too large in either): not timed, not a change, not a regression;
  // oom -> error is a change.
  const ResultSet base = run_of({timed("naive", 64, 0, 0, Status::oom),
                                 timed("naive", 128, 0, 0, Status::oom), timed("fa2", 64, 1.0)});
  const ResultSet next = run_of({timed("naive", 64, 0, 0, Status::oom),
                                 timed("naive", 128, 0, 0, Status::error), timed("fa2", 64, 1.0)});
  const Comparison c = compare_results(base, "b", next, "n", {});
  EXPECT_EQ(c.counts.not_ok_both, 1);
  EXPECT_EQ(c.counts.status, 1);
  EXPECT_EQ(c.counts.same, 1);
  EXPECT_EQ(c.counts.regressions, 0);
  EXPECT_NE(compare_table_text(c).find("1 status changes, 1 not ok in both; 0 regressions"),
            std::string::npos);
}

TEST(CompareResults, GeomeanPerBackend) {
  const ResultSet base = run_of({timed("fa2", 64, 1.0), timed("fa2", 128, 1.0),
                                 timed("naive", 64, 1.0), timed("naive", 128, 1.0)});
  const ResultSet next = run_of({timed("fa2", 64, 2.0), timed("fa2", 128, 0.5),
                                 timed("naive", 64, 4.0), timed("naive", 128, 0, 0, Status::oom)});
  const Comparison c = compare_results(base, "b", next, "n", {});
  ASSERT_EQ(c.geomean.size(), 2u);
  EXPECT_EQ(c.geomean[0].backend, "fa2");
  EXPECT_EQ(c.geomean[0].n, 2);
  EXPECT_NEAR(c.geomean[0].time_ratio, 1.0, 1e-12);  // sqrt(2 * 0.5)
  EXPECT_NEAR(c.geomean[0].tflops_ratio, 1.0, 1e-9);
  EXPECT_EQ(c.geomean[1].backend, "naive");
  EXPECT_EQ(c.geomean[1].n, 1);  // the oom case has no ratio
  EXPECT_NEAR(c.geomean[1].time_ratio, 4.0, 1e-12);
  EXPECT_EQ(c.counts.regressions, 3);  // fa2 and naive T=64 slower, naive T=128 ok→oom
}

TEST(CompareResults, DifferentConfigWarnsButCompares) {
  const Comparison c =
      compare_results(run_of({timed("fa2", 64, 1.0)}, "NVIDIA H200", "aaaa"), "b",
                      run_of({timed("fa2", 64, 1.0)}, "NVIDIA H200", "bbbb"), "n", {});
  ASSERT_EQ(c.cases.size(), 1u);
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_NE(c.warnings[0].find("different configs"), std::string::npos) << c.warnings[0];
}

TEST(CompareResults, DuplicateIdsAreReported) {
  const ResultSet base = run_of({timed("fa2", 64, 1.0), timed("fa2", 64, 5.0)});
  const Comparison c = compare_results(base, "b.json", run_of({timed("fa2", 64, 1.0)}), "n", {});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].verdict, "same");  // the first one is compared
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("duplicate"), std::string::npos);
}

TEST(CompareNormalize, PeakFromBlockOrTable) {
  // Since issue 18 the table (core/gpu_peaks.cpp) holds half the data sheets' 1,979 sparse
  // TFLOPS for H100 SXM and H200 (989.5, was rounded to 989) and knows L40S and H100 PCIe.
  EXPECT_EQ(device_peak_tflops({{"name", "NVIDIA H200"}}), 989.5);
  EXPECT_EQ(device_peak_tflops({{"name", "NVIDIA H100 80GB HBM3"}}), 989.5);
  EXPECT_EQ(device_peak_tflops({{"name", "NVIDIA A100-SXM4-80GB"}}), 312.0);
  EXPECT_EQ(device_peak_tflops({{"name", "NVIDIA L4"}}), 121.0);
  EXPECT_EQ(device_peak_tflops({{"name", "NVIDIA L40S"}}), 362.05);
  EXPECT_EQ(device_peak_tflops({{"name", "NVIDIA H100 PCIe"}}), 756.5);
  EXPECT_FALSE(device_peak_tflops({{"name", "NVIDIA H200"}}, DType::fp32));
  EXPECT_FALSE(device_peak_tflops({{"name", "NVIDIA GeForce GTX 1080"}}));
  EXPECT_FALSE(device_peak_tflops({{"kind", "cpu"}, {"name", "AMD EPYC"}}));
  EXPECT_EQ(device_peak_tflops({{"name", "NVIDIA L40S"}, {"peak_tflops", 362.0}}), 362.0);
  // The per-dtype block sweep writes.
  const nlohmann::json written = {{"name", "NVIDIA H200"},
                                  {"peak_tflops", {{"fp16", 900.0}, {"bf16", 901.0}}}};
  EXPECT_EQ(device_peak_tflops(written, DType::bf16), 901.0);
  EXPECT_FALSE(device_peak_tflops(written, DType::fp32));
  EXPECT_FALSE(device_peak_tflops(nullptr));
}

TEST(CompareNormalize, DividesByEachDevicesPeak) {
  // The A100 run is 3.2x slower; its peak is 989/312 = 3.17x lower: utilisation ~equal.
  const ResultSet h200 = run_of({timed("fa2", 64, 1.0)}, "NVIDIA H200");
  const ResultSet a100 = run_of({timed("fa2", 64, 3.2)}, "NVIDIA A100-SXM4-80GB");
  const Comparison raw = compare_results(h200, "h", a100, "a", {});
  EXPECT_NEAR(raw.cases[0].tflops_ratio, 1 / 3.2, 1e-9);
  const Comparison norm = compare_results(h200, "h", a100, "a", {0.05, true});
  EXPECT_NEAR(norm.cases[0].tflops_ratio, (989.5 / 312.0) / 3.2, 1e-9);
  EXPECT_EQ(norm.base.peak_tflops, 989.5);
  EXPECT_EQ(norm.next.peak_tflops, 312.0);
}

TEST(CompareNormalize, UsesEachCasesRecordedPctOfPeak) {
  // A case that recorded its own pct_of_peak_flops is compared on it, not recomputed.
  ResultSet h200 = run_of({timed("fa2", 64, 1.0)}, "NVIDIA H200");
  ResultSet a100 = run_of({timed("fa2", 64, 3.2)}, "NVIDIA A100-SXM4-80GB");
  h200.cases[0].pct_of_peak_flops = 40.0;
  a100.cases[0].pct_of_peak_flops = 50.0;
  const Comparison norm = compare_results(h200, "h", a100, "a", {0.05, true});
  EXPECT_NEAR(norm.cases[0].tflops_ratio, 1.25, 1e-12);
  EXPECT_NE(compare_table_text(norm).find("% of peak"), std::string::npos);
}

TEST(CompareNormalize, UnknownDeviceIsRefusedByName) {
  const ResultSet h200 = run_of({timed("fa2", 64, 1.0)}, "NVIDIA H200");
  const ResultSet odd = run_of({timed("fa2", 64, 1.0)}, "Mystery GPU 9000");
  try {
    compare_results(h200, "h.json", odd, "odd.json", {0.05, true});
    FAIL() << "no CompareError";
  } catch (const CompareError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Mystery GPU 9000"), std::string::npos) << what;
    EXPECT_NE(what.find("odd.json"), std::string::npos) << what;
  }
}

// Issue 44: a side whose statistics kept samples taken under a throttle reason (a power cap)
// cannot show a change of its own: no faster/slower, no regression.
CaseResult throttled(CaseResult r, std::vector<int> at, int n = 40) {
  r.time.n = n;
  r.time.throttled_at = std::move(at);
  return r;
}

TEST(CompareThrottle, ThrottledNewSideMakesASlowdownAmbiguousNotARegression) {
  const CaseResult base = timed("fa2", 64, 1.0);
  const CaseResult next =
      throttled(timed("fa2", 64, 1.5), {0, 3, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  const ChangeVerdict v = judge_change(base, next, 0.05);
  EXPECT_EQ(v.kind, ChangeKind::ambiguous);
  EXPECT_FALSE(v.regression);
  EXPECT_TRUE(v.throttled);
  EXPECT_FALSE(v.intervals_overlap);  // significant by the spread: only the throttle decides
  EXPECT_EQ(v.text, "ambiguous (throttled: NEW 12 of 40 samples under a throttle reason)");

  const Comparison c = compare_results(run_of({base}), "b.json", run_of({next}), "n.json", {});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.counts.ambiguous, 1);
  EXPECT_EQ(c.counts.throttled, 1);
  EXPECT_EQ(c.counts.slower, 0);
  EXPECT_EQ(c.counts.regressions, 0);
  EXPECT_EQ(c.counts.unusable, 0);
  EXPECT_FALSE(c.has_regression());  // --fail-on-regression passes
  const std::string md = compare_md_text(c);
  EXPECT_NE(md.find("| ambiguous (throttled: NEW 12 of 40 samples under a throttle reason) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("1 ambiguous (1 of them throttled)"), std::string::npos) << md;
  const std::string junit = compare_junit_text(c);
  EXPECT_NE(junit.find("failures=\"0\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("ambiguous (throttled: NEW 12 of 40"), std::string::npos) << junit;
  const auto j = compare_json(c);
  EXPECT_EQ(j["cases"][0]["kind"], "ambiguous");
  EXPECT_EQ(j["cases"][0]["throttled"], true);
  EXPECT_EQ(j["cases"][0]["regression"], false);
  EXPECT_EQ(j["counts"]["throttled"], 1);
}

TEST(CompareThrottle, ThrottledBaseOrBothSidesNamed) {
  const ChangeVerdict faster =
      judge_change(throttled(timed("fa2", 64, 1.0), {1, 2}), timed("fa2", 64, 0.5), 0.05);
  EXPECT_EQ(faster.kind, ChangeKind::ambiguous);
  EXPECT_EQ(faster.text, "ambiguous (throttled: BASE 2 of 40 samples under a throttle reason)");
  const ChangeVerdict both = judge_change(throttled(timed("fa2", 64, 1.0), {1, 2}),
                                          throttled(timed("fa2", 64, 2.0), {0}, 20), 0.05);
  EXPECT_EQ(both.text,
            "ambiguous (throttled: BASE 2 of 40, NEW 1 of 20 samples under a throttle reason)");
  EXPECT_FALSE(both.regression);
  // Within the threshold or already ambiguous: the verdict stays what the numbers say.
  const ChangeVerdict same =
      judge_change(timed("fa2", 64, 1.0), throttled(timed("fa2", 64, 1.01), {0}), 0.05);
  EXPECT_EQ(same.kind, ChangeKind::same);
  EXPECT_FALSE(same.throttled);
}

TEST(CompareThrottle, SameSlowdownWithoutThrottleIsARegression) {
  const CaseResult base = timed("fa2", 64, 1.0);
  const CaseResult next = throttled(timed("fa2", 64, 1.5), {});
  const ChangeVerdict v = judge_change(base, next, 0.05);
  EXPECT_EQ(v.kind, ChangeKind::slower);
  EXPECT_TRUE(v.regression);
  EXPECT_FALSE(v.throttled);
  const Comparison c = compare_results(run_of({base}), "b.json", run_of({next}), "n.json", {});
  EXPECT_EQ(c.counts.slower, 1);
  EXPECT_EQ(c.counts.throttled, 0);
  EXPECT_TRUE(c.has_regression());
}

TEST(CompareThrottle, DroppedThrottledSamplesOnlyCompareNormally) {
  // measure.drop_throttled left 12 throttled samples out: the statistics are clean.
  CaseResult next = throttled(timed("fa2", 64, 1.5), {});
  next.time.dropped_throttled = 12;
  CaseResult base = timed("fa2", 64, 1.0);
  base.time.dropped_throttled = 3;
  const ChangeVerdict v = judge_change(base, next, 0.05);
  EXPECT_EQ(v.kind, ChangeKind::slower);
  EXPECT_EQ(v.text, "slower");
  EXPECT_TRUE(v.regression);
  const ChangeVerdict faster = judge_change(next, base, 0.05);
  EXPECT_EQ(faster.kind, ChangeKind::faster);
}

TEST(CompareThrottle, UTestRuleAlsoDefersToTheThrottle) {
  CaseResult base = timed("fa2", 64, 1.0, 0.3);
  CaseResult next = timed("fa2", 64, 1.3, 0.3);
  for (int i = 0; i < 20; ++i) {
    base.time.samples.push_back(1.0 + 0.001 * i);
    next.time.samples.push_back(1.3 + 0.001 * i);
  }
  base.time.n = next.time.n = 20;
  EXPECT_EQ(judge_change(base, next, 0.05).kind, ChangeKind::slower);
  next.time.throttled_at = {19};
  const ChangeVerdict v = judge_change(base, next, 0.05);
  EXPECT_EQ(v.rule, VerdictRule::utest);
  EXPECT_LT(v.p_value, 0.05);
  EXPECT_EQ(v.text, "ambiguous (throttled: NEW 1 of 20 samples under a throttle reason)");
  EXPECT_FALSE(v.regression);
}

class CompareFiles : public ::testing::Test {
 protected:
  static Comparison files(const std::string& a, const std::string& b, CompareOptions o = {}) {
    return compare_results(load_results(kData + a), a, load_results(kData + b), b, o);
  }
  static std::string load_error(const std::string& name) {
    try {
      load_results(kData + name);
    } catch (const ResultsFileError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(CompareFiles, MixedPairHasEveryVerdict) {
  const Comparison c = files("base.json", "mixed.json");
  ASSERT_EQ(c.cases.size(), 5u);
  EXPECT_EQ(c.cases[0].verdict, "same");
  EXPECT_EQ(c.cases[1].verdict, "slower");
  EXPECT_EQ(c.cases[2].verdict, "ambiguous");
  EXPECT_EQ(c.cases[3].verdict, "faster");
  EXPECT_EQ(c.cases[4].verdict, "ok→oom");
  EXPECT_EQ(c.counts.regressions, 2);
  EXPECT_EQ(c.only_base, std::vector<std::string>{"naive/B1-H32-T8192-D128/fp16/causal"});
  EXPECT_EQ(c.only_new, std::vector<std::string>{"fa2/B1-H32-T8192-D128/fp16/causal"});
}

TEST_F(CompareFiles, NoiseIsSameEverywhere) {
  const Comparison c = files("base.json", "noise.json");
  EXPECT_EQ(c.counts.same, 6);
  EXPECT_FALSE(c.has_regression());
}

TEST_F(CompareFiles, OlderSchemaWithExtraFieldsLoadsAndMatches) {
  const Comparison c = files("old_extra.json", "base.json");
  EXPECT_EQ(c.cases.size(), 6u);
  EXPECT_EQ(c.counts.same, 6);
  EXPECT_TRUE(c.only_base.empty());
  EXPECT_TRUE(c.only_new.empty());
}

TEST_F(CompareFiles, UnusableFilesNameTheFile) {
  EXPECT_NE(load_error("unknown_major.json").find("unknown_major.json: unknown schema"),
            std::string::npos)
      << load_error("unknown_major.json");
  const std::string trunc = load_error("truncated.json");
  EXPECT_NE(trunc.find("truncated.json: line "), std::string::npos) << trunc;
  EXPECT_NE(trunc.find("truncated JSON"), std::string::npos) << trunc;
  EXPECT_NE(load_error("empty.json").find("empty.json: empty file"), std::string::npos);
}

TEST_F(CompareFiles, FormatsCarryTheVerdicts) {
  const Comparison c = files("base.json", "mixed.json");
  const std::string table = compare_table_text(c);
  EXPECT_NE(table.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(table.find("ok→oom"), std::string::npos);
  EXPECT_NE(table.find("only in BASE: naive/B1-H32-T8192-D128/fp16/causal"), std::string::npos);
  EXPECT_NE(table.find("only in NEW:  fa2/B1-H32-T8192-D128/fp16/causal"), std::string::npos);
  const std::string md = compare_md_text(c);
  EXPECT_NE(md.find("| backend | shape |"), std::string::npos);
  EXPECT_NE(md.find("### Geometric mean per backend"), std::string::npos);
  EXPECT_NE(md.find("**Verdicts:** 1 same, 1 faster, 1 slower, 1 ambiguous"), std::string::npos)
      << md;
  const std::string csv = compare_csv_text(c);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 5 + 2);
  EXPECT_NE(csv.find(",only_base,"), std::string::npos);
  const auto j = compare_json(c);
  EXPECT_EQ(j["counts"]["regressions"], 2);
  EXPECT_EQ(j["cases"][1]["verdict"], "slower");
  EXPECT_TRUE(j["cases"][4]["base"]["median_ms"].is_number());
  EXPECT_TRUE(j["cases"][4]["new"]["median_ms"].is_null());
  const std::string junit = compare_junit_text(c);
  // The case only in BASE is a failing testcase of its own since issue 13.
  EXPECT_NE(junit.find("tests=\"6\" failures=\"3\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("classname=\"fa2bench.compare.gate\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("<failure message=\"slower: median"), std::string::npos) << junit;
  const std::string summary = compare_summary_md_text(c);
  EXPECT_NE(summary.find("2 regressions"), std::string::npos) << summary;
}

TEST_F(CompareFiles, DifferentDevicesBothShown) {
  const Comparison c = files("base.json", "other_gpu.json");
  const std::string table = compare_table_text(c);
  EXPECT_NE(table.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(table.find("NVIDIA A100-SXM4-80GB"), std::string::npos);
  EXPECT_EQ(c.counts.slower, 6);
  const Comparison norm = files("base.json", "other_gpu.json", {0.05, true});
  EXPECT_NE(compare_table_text(norm).find("% of peak"), std::string::npos);
}

}  // namespace
}  // namespace fa2b
