// SPDX-License-Identifier: Apache-2.0
// Report writers and the results loader: round trips, loader errors, CSV, Markdown, JUnit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/shape_algebra.h"
#include "io/jsonl_writer.h"
#include "io/results_json.h"
#include "report/report.h"

namespace fa2b {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("fa2bench_report_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void write(const std::string& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
  }
  // The message of the ResultsFileError that loading `p` throws ("" when none).
  static std::string load_error(const std::string& p) {
    try {
      load_results(p);
    } catch (const ResultsFileError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

CaseResult make_case(const std::string& backend, std::int64_t T, double median_ms,
                     std::int64_t peak) {
  CaseResult r;
  r.c.sweep = "seed";
  r.c.backend = backend;
  r.c.role = backend;
  r.c.B = 1;
  r.c.H = 32;
  r.c.H_kv = 8;
  r.c.T_q = T;
  r.c.T_k = T;
  r.c.D = 128;
  r.c.dtype = DType::bf16;
  r.c.causal = true;
  r.c.layout = Layout::bshd;
  r.c.measure.seed = (1ULL << 63) + 5;  // beyond int64
  r.c.measure.inputs = InputDist::uniform;
  r.c.measure.l2_flush = false;
  r.target = "cuda";
  r.time.median = median_ms;
  r.time.mean = median_ms * 1.01;
  r.time.min = median_ms * 0.9;
  r.time.max = median_ms * 1.3;
  r.time.p10 = median_ms * 0.95;
  r.time.p90 = median_ms * 1.05;
  r.time.stdev = median_ms * 0.02;
  r.time.n = 20;
  r.time.first_ms = median_ms * 7.25;
  r.flops = attention_flops(r.c);
  r.tflops = r.flops / (median_ms * 1e-3) / 1e12;
  r.gbps = 1234.5678901234567;
  r.memory.peak_bytes = peak;
  r.memory.workspace_bytes = peak / 2;
  r.memory.predicted_bytes = peak + 256;
  r.accuracy.checked = true;
  r.accuracy.max_abs_err = 0.0009765625;
  r.accuracy.mean_abs_err = 1.2345678901234567e-5;
  r.accuracy.rel_l2_err = 3.3e-4;
  r.accuracy.rows_checked = 256;
  return r;
}

ResultSet sample_results() {
  ResultSet rs;
  rs.tool = {{"version", "0.1.0"}, {"git", "abc123def456"}, {"build", "Release"}};
  rs.host = {{"hostname", "box"}, {"cpu_threads", 16}};
  rs.device = {{"name", "NVIDIA H200"}, {"cc", "9.0"}, {"sms", 132}};
  rs.target = "cuda";
  rs.config_path = "configs/seed_notebook.json";
  rs.config_sha256 = std::string(64, 'a');
  rs.config_echo = {{"name", "seed"}, {"sweeps", json::array()}};
  rs.cases.push_back(make_case("naive", 2048, 3.32, 1000000));
  rs.cases.push_back(make_case("fa2", 2048, 1.0, 133000));
  CaseResult oom = make_case("naive", 32768, 0, 0);
  oom.status = Status::oom;
  oom.reason = "needs 12.0 GiB, \"budget\" 8.0 GiB";
  oom.time = TimeStats{};
  oom.tflops = kNaN;
  oom.gbps = kNaN;
  oom.accuracy = Accuracy{};
  oom.memory.requested_bytes = 12LL << 30;
  rs.cases.push_back(oom);
  CaseResult bad = make_case("fa2", 32768, 10.0, 5000000);
  bad.accuracy.max_abs_err = INFINITY;
  bad.accuracy.rel_l2_err = INFINITY;  // an error is never negative: the loader refuses -inf
  bad.accuracy.mean_abs_err = kNaN;
  bad.accuracy.nonfinite = 17;
  rs.cases.push_back(bad);

  Verdict pass{"fa2_matches_reference",     "threshold", VerdictKind::pass, 7e-4, "< 0.001",
               "worst max_abs_err = 0.0007"};
  Verdict fail{"naive <slow> & \"fa2\"", "ratio", VerdictKind::fail, 2.5, "< 1",
               "worst <time> & 'ratio'"};
  Verdict err{"growth_check", "growth", VerdictKind::error,
              kNaN,           ">= 3",   "naive/B1 is oom: needs 12 GiB"};
  rs.checks = {pass, fail, err};
  rs.interrupted = true;
  rs.wall_s = 12.5;
  return rs;
}

// ---- JSON round trip ------------------------------------------------------------------------

TEST_F(ReportTest, JsonRoundTripIsExact) {
  const ResultSet rs = sample_results();
  const std::string p = path("results.json");
  write_results_json(rs, p);
  EXPECT_FALSE(fs::exists(p + ".tmp"));
  const ResultSet back = load_results(p);
  EXPECT_EQ(to_json(back), to_json(rs));
  ASSERT_EQ(back.cases.size(), rs.cases.size());
  const CaseResult& c0 = back.cases[0];
  EXPECT_EQ(c0.c.id(), rs.cases[0].c.id());
  EXPECT_EQ(c0.c.H_kv, 8);
  EXPECT_EQ(c0.c.layout, Layout::bshd);
  EXPECT_EQ(c0.c.dtype, DType::bf16);
  EXPECT_EQ(c0.c.measure.seed, (1ULL << 63) + 5);
  EXPECT_EQ(c0.c.measure.inputs, InputDist::uniform);
  EXPECT_FALSE(c0.c.measure.l2_flush);
  EXPECT_EQ(c0.time.first_ms, rs.cases[0].time.first_ms);
  EXPECT_EQ(c0.gbps, rs.cases[0].gbps);
  EXPECT_EQ(c0.accuracy.mean_abs_err, rs.cases[0].accuracy.mean_abs_err);
  // NaN and infinities survive.
  const CaseResult& oom = back.cases[2];
  EXPECT_EQ(oom.status, Status::oom);
  EXPECT_EQ(oom.reason, rs.cases[2].reason);
  EXPECT_TRUE(std::isnan(oom.time.median));
  EXPECT_TRUE(std::isnan(oom.tflops));
  EXPECT_FALSE(oom.accuracy.checked);
  EXPECT_EQ(oom.memory.requested_bytes, 12LL << 30);
  const CaseResult& bad = back.cases[3];
  EXPECT_TRUE(std::isinf(bad.accuracy.max_abs_err) && bad.accuracy.max_abs_err > 0);
  EXPECT_TRUE(std::isinf(bad.accuracy.rel_l2_err) && bad.accuracy.rel_l2_err > 0);
  EXPECT_TRUE(std::isnan(bad.accuracy.mean_abs_err));
  EXPECT_EQ(bad.accuracy.nonfinite, 17);
  ASSERT_EQ(back.checks.size(), 3u);
  EXPECT_EQ(back.checks[1].name, rs.checks[1].name);
  EXPECT_EQ(back.checks[1].verdict, VerdictKind::fail);
  EXPECT_TRUE(std::isnan(back.checks[2].measured));
  EXPECT_TRUE(back.interrupted);
  EXPECT_EQ(back.wall_s, 12.5);
  EXPECT_EQ(back.tool["git"], "abc123def456");
  EXPECT_EQ(back.config_sha256, rs.config_sha256);
  EXPECT_EQ(back.config_echo, rs.config_echo);
}

TEST_F(ReportTest, JsonHasSummaryConventionsAndValidNumbers) {
  const ResultSet rs = sample_results();
  const json j = json::parse(results_json_text(rs));  // strict JSON: no NaN literals
  EXPECT_EQ(j["schema"], "fa2bench/results/1");
  EXPECT_EQ(j["summary"]["cases"], 4);
  EXPECT_EQ(j["summary"]["ok"], 3);
  EXPECT_EQ(j["summary"]["oom"], 1);
  EXPECT_EQ(j["summary"]["checks_pass"], 1);
  EXPECT_EQ(j["summary"]["checks_fail"], 1);
  EXPECT_EQ(j["summary"]["checks_error"], 1);
  EXPECT_TRUE(j["conventions"]["flops"].get<std::string>().find("halved when causal") !=
              std::string::npos);
  EXPECT_TRUE(j["conventions"].contains("peak_bytes"));
  EXPECT_TRUE(j["cases"][2]["time_ms"]["median"].is_null());
  EXPECT_EQ(j["cases"][3]["accuracy"]["max_abs_err"], "inf");
  EXPECT_EQ(j["cases"][3]["accuracy"]["rel_l2_err"], "inf");
  EXPECT_EQ(j["cases"][0]["id"], "naive/B1-H32-Hkv8-T2048-D128/bf16/causal/bshd");
  EXPECT_EQ(j["cases"][0]["params"]["D"], 128);
  EXPECT_EQ(j["cases"][0]["measure"]["inputs"], "uniform");
}

TEST_F(ReportTest, LoaderIgnoresUnknownFieldsAndAcceptsMinorVersions) {
  const ResultSet rs = sample_results();
  json j = to_json(rs);
  j["schema"] = "fa2bench/results/1.3";
  j["future_block"] = {{"x", 1}};
  j["cases"][0]["future_field"] = "y";
  j["cases"][0]["params"]["softcap"] = 30;
  j["cases"][0]["time_ms"]["p99"] = 4.0;
  j["checks"][0]["extra"] = json::array({1, 2});
  const std::string p = path("future.json");
  write(p, j.dump());
  const ResultSet back = load_results(p);
  json expected = to_json(rs);
  json got = to_json(back);
  got.erase("schema");
  expected.erase("schema");
  EXPECT_EQ(got, expected);
}

TEST_F(ReportTest, CaseResultFromJsonRoundTrips) {
  const ResultSet rs = sample_results();
  for (const CaseResult& r : rs.cases)
    EXPECT_EQ(to_json(case_result_from_json(to_json(r))), to_json(r));
}

TEST_F(ReportTest, BackendInfoRoundTripsAndIsWrittenOnlyWhenSet) {
  ResultSet rs = sample_results();
  const std::string info = "heur A #0: engine 8, knobs 24=1,25=0 \"q\" \u00b5";
  rs.cases[1].backend_info = info;
  const std::string p = path("results.json");
  write_results_json(rs, p);
  const json j = json::parse(read(p));
  EXPECT_EQ(j["cases"][1]["backend_info"], info);
  EXPECT_FALSE(j["cases"][0].contains("backend_info"));  // empty: no key at all
  const ResultSet back = load_results(p);
  ASSERT_EQ(back.cases.size(), rs.cases.size());
  EXPECT_EQ(back.cases[1].backend_info, info);
  EXPECT_EQ(back.cases[0].backend_info, "");
  EXPECT_EQ(to_json(back), to_json(rs));
  // The isolated child's path: one case to JSON and back.
  EXPECT_EQ(case_result_from_json(to_json(rs.cases[1])).backend_info, info);
  // A file from before the field (no key) loads with an empty backend_info.
  json old = to_json(rs);
  old["cases"][1].erase("backend_info");
  write(p, old.dump());
  EXPECT_EQ(load_results(p).cases[1].backend_info, "");
  // Not a string: an error naming the place.
  json bad = to_json(rs);
  bad["cases"][1]["backend_info"] = 5;
  write(p, bad.dump());
  const std::string msg = load_error(p);
  EXPECT_NE(msg.find("/cases/1/backend_info"), std::string::npos) << msg;
}

// ---- loader errors --------------------------------------------------------------------------

TEST_F(ReportTest, LoaderErrorMissingFile) {
  const std::string p = path("nope.json");
  const std::string msg = load_error(p);
  EXPECT_EQ(msg.rfind(p + ": ", 0), 0u) << msg;
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
}

TEST_F(ReportTest, LoaderErrorEmptyFile) {
  const std::string p = path("empty.json");
  write(p, "");
  EXPECT_EQ(load_error(p), p + ": empty file");
  write(p, "  \n");
  EXPECT_EQ(load_error(p), p + ": empty file");
}

TEST_F(ReportTest, LoaderErrorTruncated) {
  const std::string p = path("truncated.json");
  const std::string text = results_json_text(sample_results());
  write(p, text.substr(0, text.size() / 2));
  const std::string msg = load_error(p);
  EXPECT_EQ(msg.rfind(p + ": line ", 0), 0u) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  // Cut inside a string.
  const std::size_t in_string = text.find("\"device\"") + 4;
  write(p, text.substr(0, in_string));
  const std::string msg2 = load_error(p);
  EXPECT_EQ(msg2.rfind(p + ": line ", 0), 0u) << msg2;
  EXPECT_NE(msg2.find("truncated"), std::string::npos) << msg2;
}

TEST_F(ReportTest, LoaderErrorNotJsonNamesLineAndColumn) {
  const std::string p = path("bad.json");
  write(p, "{\n  \"schema\": fa2bench\n}\n");
  const std::string msg = load_error(p);
  EXPECT_EQ(msg.rfind(p + ": line 2, column ", 0), 0u) << msg;
  EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
}

TEST_F(ReportTest, LoaderErrorTopLevelNotObject) {
  const std::string p = path("array.json");
  write(p, "[1, 2]");
  const std::string msg = load_error(p);
  EXPECT_EQ(msg.rfind(p + ": ", 0), 0u) << msg;
  EXPECT_NE(msg.find("array"), std::string::npos) << msg;
}

TEST_F(ReportTest, LoaderErrorUnknownSchema) {
  const std::string p = path("v2.json");
  json j = to_json(sample_results());
  j["schema"] = "fa2bench/results/2";
  write(p, j.dump());
  EXPECT_EQ(load_error(p),
            p + ": unknown schema \"fa2bench/results/2\" (this build reads fa2bench/results/1)");
  j["schema"] = "fa2bench/results/10";
  write(p, j.dump());
  EXPECT_NE(load_error(p).find("unknown schema"), std::string::npos);
  j["schema"] = "something/else";
  write(p, j.dump());
  EXPECT_NE(load_error(p).find("unknown schema \"something/else\""), std::string::npos);
  j.erase("schema");
  write(p, j.dump());
  EXPECT_EQ(load_error(p), p + ": /schema: missing");
}

TEST_F(ReportTest, LoaderErrorMissingFieldNamesPointer) {
  const std::string p = path("missing.json");
  json j = to_json(sample_results());
  j["cases"][3]["params"].erase("D");
  write(p, j.dump());
  EXPECT_EQ(load_error(p), p + ": /cases/3/params/D: missing");
  j = to_json(sample_results());
  j["checks"][1].erase("verdict");
  write(p, j.dump());
  EXPECT_EQ(load_error(p), p + ": /checks/1/verdict: missing");
}

TEST_F(ReportTest, LoaderErrorWrongTypeNamesPointer) {
  const std::string p = path("type.json");
  json j = to_json(sample_results());
  j["cases"][0]["params"]["B"] = "one";
  write(p, j.dump());
  EXPECT_EQ(load_error(p), p + ": /cases/0/params/B: expected an integer, got string \"one\"");
  j = to_json(sample_results());
  j["cases"][1]["time_ms"]["median"] = "fast";
  write(p, j.dump());
  EXPECT_NE(load_error(p).find(p + ": /cases/1/time_ms/median: expected a number"),
            std::string::npos);
  j = to_json(sample_results());
  j["cases"][1]["status"] = "crashed";
  write(p, j.dump());
  EXPECT_EQ(load_error(p), p + ": /cases/1/status: unknown status \"crashed\"");
  j = to_json(sample_results());
  j["cases"] = json::object();
  write(p, j.dump());
  EXPECT_EQ(load_error(p), p + ": /cases: expected an array, got object");
}

// ---- CSV ------------------------------------------------------------------------------------

TEST_F(ReportTest, CsvHeaderAndRows) {
  const ResultSet rs = sample_results();
  const std::string p = path("results.csv");
  write_results_csv(rs, p);
  std::istringstream in(read(p));
  std::string header, row0, row1, row2;
  std::getline(in, header);
  std::getline(in, row0);
  std::getline(in, row1);
  std::getline(in, row2);
  EXPECT_EQ(
      header,
      "id,sweep,backend,role,B,H,H_kv,T_q,T_k,D,dtype,causal,layout,mode,target,status,reason,"
      "time_median_ms,time_p10_ms,time_p90_ms,time_min_ms,time_max_ms,time_mean_ms,"
      "time_stdev_ms,samples,time_first_ms,tflops,gbps,peak_bytes,workspace_bytes,"
      "predicted_bytes,max_abs_err,mean_abs_err,rel_l2_err,nonfinite,rows_checked,"
      "device_index,saved_bytes,max_abs_err_dq,mean_abs_err_dq,rel_l2_err_dq,"
      "max_abs_err_dk,mean_abs_err_dk,rel_l2_err_dk,max_abs_err_dv,mean_abs_err_dv,"
      "rel_l2_err_dv,nonfinite_grad,key_rows_checked,window_left,window_right,packing,total_tokens,"
      "padding_ratio,"
      "executed_flops,kv_layout,page_size,mfu,bw_frac,repro,D_v");
  EXPECT_EQ(row0.rfind("naive/B1-H32-Hkv8-T2048-D128/bf16/causal/bshd,seed,naive,naive,1,32,8,"
                       "2048,2048,128,bf16,true,bshd,fwd,cuda,ok,,3.32,",
                       0),
            0u)
      << row0;
  EXPECT_NE(row0.find(",1000000,500000,1000256,0.0009765625,"), std::string::npos) << row0;
  // The reason has a comma and quotes: quoted, quotes doubled; missing numbers are empty.
  EXPECT_NE(row2.find(",oom,\"needs 12.0 GiB, \"\"budget\"\" 8.0 GiB\",,,,"), std::string::npos)
      << row2;
  // No window: both bounds -1 (unbounded); a dense case leaves the four varlen columns empty,
  // and a contiguous one the page size.
  // No peak fractions and no repro recorded: those three cells empty; D_v (= D) last.
  EXPECT_EQ(row0.substr(row0.size() - 29), ",-1,-1,,,,,contiguous,,,,,128") << row0;
  std::size_t columns = 1;
  for (char ch : header) columns += ch == ',';
  EXPECT_EQ(columns, 61u);
}

TEST_F(ReportTest, DeviceIndexIsWrittenOnlyForCasesOnADeviceAndRoundTrips) {
  ResultSet rs = sample_results();
  rs.cases[0].device_index = 1;  // e.g. the second GPU of a --devices run
  const std::string p = path("results.json");
  write_results_json(rs, p);
  const json j = json::parse(read(p));
  EXPECT_EQ(j["cases"][0]["device_index"], 1);
  EXPECT_FALSE(j["cases"][1].contains("device_index"));  // -1: not on a device, no key
  const ResultSet back = load_results(p);
  EXPECT_EQ(back.cases[0].device_index, 1);
  EXPECT_EQ(back.cases[1].device_index, -1);
  EXPECT_EQ(case_result_from_json(to_json(rs.cases[0])).device_index, 1);  // the child's path
  const std::string csv = results_csv_text(rs);
  std::istringstream in(csv);
  std::string header, row0, row1;
  std::getline(in, header);
  std::getline(in, row0);
  std::getline(in, row1);
  // The field under the device_index header (no commas in these rows' quoted fields).
  auto field = [&](const std::string& row) {
    const std::size_t col = static_cast<std::size_t>(
        std::count(header.begin(), header.begin() + header.find("device_index"), ','));
    std::istringstream fields(row);
    std::string f;
    for (std::size_t i = 0; i <= col; ++i) std::getline(fields, f, ',');
    return f;
  };
  EXPECT_EQ(field(row0), "1") << row0;
  EXPECT_EQ(field(row1), "") << row1;  // not on a device: empty
  json bad = to_json(rs);
  bad["cases"][0]["device_index"] = "one";
  write(p, bad.dump());
  EXPECT_THROW(load_results(p), std::exception);
}

TEST_F(ReportTest, PeakFractionsAndReproRoundTripThroughJsonAndCsv) {
  ResultSet rs = sample_results();
  rs.cases[0].mfu = 0.5;
  rs.cases[0].bw_frac = 0.25;
  // Commas and quotes: the CSV cell is quoted, the JSON string kept as is.
  rs.cases[0].repro = "fa2bench sweep --backends fa2,naive --filter '^naive/x$' --target cuda";
  const std::string p = path("results.json");
  write_results_json(rs, p);
  const ResultSet back = load_results(p);
  EXPECT_EQ(back.cases[0].mfu, 0.5);
  EXPECT_EQ(back.cases[0].bw_frac, 0.25);
  EXPECT_EQ(back.cases[0].repro, rs.cases[0].repro);
  EXPECT_TRUE(std::isnan(back.cases[1].mfu));  // absent: unknown
  EXPECT_TRUE(back.cases[1].repro.empty());
  const std::string csv = results_csv_text(rs);
  EXPECT_NE(csv.find(",0.5,0.25,\"fa2bench sweep --backends fa2,naive --filter '^naive/x$' "
                     "--target cuda\","),
            std::string::npos)
      << csv;
}

// ---- summary.md -----------------------------------------------------------------------------

TEST_F(ReportTest, SummaryShowsPeakFractionsOnlyWhereAnyIsKnown) {
  ResultSet rs = sample_results();
  EXPECT_EQ(summary_md_text(rs).find("MFU / BW frac |"), std::string::npos);  // none known
  rs.cases[0].mfu = 0.5;
  rs.cases[0].bw_frac = 0.25;
  const std::string md = summary_md_text(rs);
  EXPECT_NE(md.find("| naive ms | naive TFLOP/s | naive MFU / BW frac | naive peak MiB | naive "
                    "status |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find(" | 0.500 / 0.250 | "), std::string::npos) << md;
  EXPECT_NE(md.find(" | — / — | "), std::string::npos) << md;  // fa2's: unknown, not 0
}

TEST_F(ReportTest, SummaryHasSpeedupAndMemoryReduction) {
  const ResultSet rs = sample_results();
  const std::string p = path("summary.md");
  write_summary_md(rs, p);
  const std::string md = read(p);
  EXPECT_NE(md.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(md.find("configs/seed_notebook.json"), std::string::npos);
  EXPECT_NE(md.find("abc123def456"), std::string::npos);
  EXPECT_NE(md.find("## Sweep `seed`"), std::string::npos) << md;
  EXPECT_NE(md.find("| naive ms | naive TFLOP/s | naive peak MiB | naive status |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("B1-H32-Hkv8-T2048-D128/bf16/causal/bshd, fa2: Memory reduction: 86.7%, "
                    "Speedup: 3.32x"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("B1-H32-Hkv8-T32768-D128/bf16/causal/bshd, fa2: baseline oom"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## Checks"), std::string::npos);
  EXPECT_NE(md.find("| **fail** | naive <slow> & \"fa2\" | 2.5 | < 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("Interrupted"), std::string::npos);
}

TEST_F(ReportTest, SummaryBaselineByRole) {
  ResultSet rs = sample_results();
  rs.cases.resize(2);
  rs.cases[0].c.backend = "cpu-naive";  // role stays "naive"
  rs.cases[1].c.role = "fa2";
  rs.cases[1].c.backend = "cpu-flash";
  const std::string md = summary_md_text(rs, "naive");
  EXPECT_NE(md.find("fa2: Memory reduction: 86.7%, Speedup: 3.32x"), std::string::npos) << md;
  const std::string none = summary_md_text(rs, "cudnn");
  EXPECT_NE(none.find("No `cudnn` case in this sweep"), std::string::npos) << none;
}

// ---- JUnit ----------------------------------------------------------------------------------

// A minimal well-formedness check: tags balance, attribute values are quoted, '<' never
// appears in text or attributes, and every '&' starts a known entity.
std::string xml_problem(const std::string& x) {
  std::vector<std::string> stack;
  auto entity_ok = [&](std::size_t i) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (x.compare(i, std::strlen(e), e) == 0) return true;
    return false;
  };
  std::size_t i = 0;
  if (x.rfind("<?xml", 0) == 0) i = x.find("?>") + 2;
  bool root_seen = false;
  while (i < x.size()) {
    if (x[i] == '&') {
      if (!entity_ok(i)) return "bad entity at " + std::to_string(i);
      ++i;
    } else if (x[i] == '<') {
      const bool closing = x[i + 1] == '/';
      std::size_t j = i + (closing ? 2 : 1);
      std::size_t name_end = x.find_first_of(" />\n", j);
      const std::string name = x.substr(j, name_end - j);
      if (name.empty()) return "empty tag name at " + std::to_string(i);
      // Scan to the closing '>' outside quotes.
      std::size_t k = name_end;
      bool in_quote = false;
      for (; k < x.size(); ++k) {
        if (x[k] == '"') in_quote = !in_quote;
        if (in_quote && x[k] == '<') return "'<' in attribute at " + std::to_string(k);
        if (in_quote && x[k] == '&' && !entity_ok(k)) return "bad entity at " + std::to_string(k);
        if (!in_quote && x[k] == '>') break;
      }
      if (k == x.size()) return "unterminated tag at " + std::to_string(i);
      const bool self_closing = x[k - 1] == '/';
      if (closing) {
        if (stack.empty() || stack.back() != name) return "mismatched </" + name + ">";
        stack.pop_back();
      } else if (!self_closing) {
        if (stack.empty() && root_seen) return "second root element " + name;
        root_seen = true;
        stack.push_back(name);
      }
      i = k + 1;
    } else {
      ++i;
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  return root_seen ? "" : "no root element";
}

TEST_F(ReportTest, JunitIsWellFormedWithFailuresAndErrors) {
  ResultSet rs = sample_results();
  rs.cases[1].status = Status::error;
  rs.cases[1].reason = "CUDA error <illegal address> & more\x01";
  const std::string p = path("junit.xml");
  write_junit(rs, p);
  const std::string x = read(p);
  EXPECT_EQ(xml_problem(x), "") << x;
  EXPECT_NE(x.find("<testsuite name=\"fa2bench\" tests=\"4\" failures=\"1\" errors=\"2\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("name=\"naive &lt;slow&gt; &amp; &quot;fa2&quot;\""), std::string::npos) << x;
  EXPECT_NE(x.find("<failure message=\"measured 2.5, threshold &lt; 1\" type=\"ratio\">worst "
                   "&lt;time&gt; &amp; &apos;ratio&apos;</failure>"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<error message=\"naive/B1 is oom: needs 12 GiB\""), std::string::npos) << x;
  EXPECT_NE(x.find("name=\"sweep\""), std::string::npos);
  EXPECT_NE(x.find("1 of 4 cases ended in error or timeout; the sweep was interrupted"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("CUDA error &lt;illegal address&gt; &amp; more\\x01"), std::string::npos) << x;
  // The checker itself catches broken XML.
  EXPECT_NE(xml_problem("<a><b></a>"), "");
  EXPECT_NE(xml_problem("<a x=\"1 & 2\"/>"), "");
}

TEST_F(ReportTest, JunitPassingSweep) {
  ResultSet rs = sample_results();
  rs.checks.resize(1);
  rs.interrupted = false;
  const std::string x = junit_text(rs);
  EXPECT_EQ(xml_problem(x), "") << x;
  EXPECT_EQ(x.find("<failure"), std::string::npos);
  EXPECT_EQ(x.find("<error"), std::string::npos);
}

// ---- JSONL ----------------------------------------------------------------------------------

TEST_F(ReportTest, JsonlAppendsOneLinePerCase) {
  const ResultSet rs = sample_results();
  const std::string p = path("stream.jsonl");
  {
    JsonlWriter w(p);
    w.append(rs.cases[0]);
    // Flushed right away: visible before the writer closes.
    const std::string so_far = read(p);
    EXPECT_EQ(std::count(so_far.begin(), so_far.end(), '\n'), 1);
    w.append(rs.cases[3]);
  }
  {
    JsonlWriter w(p);  // appends, never truncates
    w.append(rs.cases[2]);
  }
  std::istringstream in(read(p));
  std::string line;
  std::vector<CaseResult> back;
  while (std::getline(in, line)) back.push_back(case_result_from_json(json::parse(line)));
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(to_json(back[0]), to_json(rs.cases[0]));
  EXPECT_EQ(to_json(back[1]), to_json(rs.cases[3]));
  EXPECT_EQ(to_json(back[2]), to_json(rs.cases[2]));
}

TEST_F(ReportTest, WriteIntoMissingDirectoryNamesTheFile) {
  const std::string p = path("no/such/dir/results.json");
  try {
    write_results_json(sample_results(), p);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fa2b
