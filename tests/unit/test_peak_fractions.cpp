// SPDX-License-Identifier: Apache-2.0
// A case's mfu and bw_frac (issue 44): fractions of the device block's peaks, NaN where no
// peak is known, written only where known, and refused by the reader where impossible.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "backends/backend.h"
#include "core/peak_fractions.h"
#include "io/results_json.h"
#include "probe_platform.h"
#include "report/report.h"
#include "runner/case_runner.h"

namespace fa2b {
namespace {

const nlohmann::json& h200() {
  static const nlohmann::json block =
      with_device_peaks({{"kind", "cuda"}, {"name", "NVIDIA H200"}});
  return block;
}

TEST(PeakFractions, AreThroughputOverTheDeviceBlocksPeaks) {
  const double peak = block_peak_tflops(h200(), DType::fp16);
  const double bw = block_peak_bw_gbs(h200());
  EXPECT_DOUBLE_EQ(model_flops_utilisation(peak / 4, h200(), DType::fp16), 0.25);
  EXPECT_DOUBLE_EQ(model_flops_utilisation(peak / 2, h200(), DType::bf16), 0.5);
  EXPECT_DOUBLE_EQ(bandwidth_fraction(bw / 8, h200()), 0.125);
}

TEST(PeakFractions, UnknownWhereThereIsNoPeakOrNoThroughput) {
  const nlohmann::json cpu = with_device_peaks({{"kind", "cpu"}, {"name", "host"}});
  const nlohmann::json unlisted = with_device_peaks({{"kind", "cuda"}, {"name", "Mystery"}});
  EXPECT_TRUE(std::isnan(model_flops_utilisation(1.0, cpu, DType::fp16)));
  EXPECT_TRUE(std::isnan(bandwidth_fraction(1.0, cpu)));
  EXPECT_TRUE(std::isnan(model_flops_utilisation(1.0, unlisted, DType::bf16)));
  EXPECT_TRUE(std::isnan(bandwidth_fraction(1.0, unlisted)));
  // fp32 has no tensor-core peak; its bandwidth fraction is still known.
  EXPECT_TRUE(std::isnan(model_flops_utilisation(1.0, h200(), DType::fp32)));
  // An untimed case (NaN) or one that did nothing (0) has no fraction, never 0.
  EXPECT_TRUE(std::isnan(model_flops_utilisation(kNaN, h200(), DType::fp16)));
  EXPECT_TRUE(std::isnan(model_flops_utilisation(0.0, h200(), DType::fp16)));
  EXPECT_TRUE(std::isnan(bandwidth_fraction(0.0, h200())));
}

// The host platform, claiming to be an H200: the runner finds peaks for its cases.
class H200Platform : public ProbePlatform {
 public:
  H200Platform() : ProbePlatform(false, [](int) { return GpuReading{}; }) {}
  nlohmann::json device_block() const override {
    return {{"kind", "cuda"}, {"name", "NVIDIA H200"}};
  }
};

TEST(PeakFractions, TheRunnerRecordsThemBesideThePercentages) {
  H200Platform platform;
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(tiny_timed_case(2), *backend, platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_DOUBLE_EQ(r.mfu, r.tflops / block_peak_tflops(h200(), r.c.dtype));
  EXPECT_DOUBLE_EQ(r.bw_frac, r.gbps / block_peak_bw_gbs(h200()));
  EXPECT_DOUBLE_EQ(r.pct_of_peak_flops, 100 * r.mfu);
  EXPECT_DOUBLE_EQ(r.pct_of_peak_bw, 100 * r.bw_frac);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["mfu"].get<double>(), r.mfu);
  EXPECT_EQ(j["bw_frac"].get<double>(), r.bw_frac);
  const CaseResult back = case_result_from_json(j);
  EXPECT_EQ(back.mfu, r.mfu);
  EXPECT_EQ(back.bw_frac, r.bw_frac);
}

TEST(PeakFractions, AbsentOnTheCpuTargetInJsonAndEmptyInCsv) {
  ProbePlatform platform(false, [](int) { return GpuReading{}; });
  auto backend = make_backend("cpu-flash");
  ResultSet rs;
  rs.cases.push_back(run_case(tiny_timed_case(2), *backend, platform));
  const CaseResult& r = rs.cases[0];
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_TRUE(std::isnan(r.mfu));
  EXPECT_TRUE(std::isnan(r.bw_frac));
  const nlohmann::json j = to_json(r);
  EXPECT_FALSE(j.contains("mfu"));
  EXPECT_FALSE(j.contains("bw_frac"));
  // mfu, bw_frac and repro, all empty here, then D_v (the newest column, last).
  const std::string csv = results_csv_text(rs);
  EXPECT_NE(csv.find(",mfu,bw_frac,repro,D_v\n"), std::string::npos) << csv;
  const std::string dv = "," + std::to_string(rs.cases[0].c.Dv()) + "\n";
  EXPECT_EQ(csv.substr(csv.size() - 3 - dv.size()), ",,," + dv) << csv;
}

TEST(PeakFractions, TheReaderRefusesImpossibleValuesAndReadsNullAsUnknown) {
  CaseResult r;
  r.c = tiny_timed_case(2);
  const nlohmann::json good = to_json(r);
  for (const char* key : {"mfu", "bw_frac"}) {
    for (const nlohmann::json& bad : {nlohmann::json(-0.25), nlohmann::json(0.0),
                                      nlohmann::json("inf"), nlohmann::json("-inf")}) {
      nlohmann::json j = good;
      j[key] = bad;
      try {
        case_result_from_json(j);
        ADD_FAILURE() << key << " = " << bad.dump() << " was read";
      } catch (const ResultsFileError& e) {
        EXPECT_NE(std::string(e.what()).find(std::string("/") + key), std::string::npos)
            << e.what();
      }
    }
    nlohmann::json j = good;
    j[key] = nullptr;
    const CaseResult back = case_result_from_json(j);
    EXPECT_TRUE(std::isnan(std::string(key) == "mfu" ? back.mfu : back.bw_frac));
  }
}

}  // namespace
}  // namespace fa2b
