// SPDX-License-Identifier: Apache-2.0
// Device-relative checks (issue 43): `where: fits/exceeds` against the results' capacity,
// `pairs: both_ran` with `min_pairs`, and the verdict `skipped` — evaluated, parsed from a config,
// written and read back, JUnit's <skipped>, never a failure of the exit code, and never a way to
// hide a crashed case (the gate turns it into `error`).
#include <gtest/gtest.h>

#include <string>

#include "app/exit_codes.h"
#include "checks/checks.h"
#include "checks/model_checks.h"
#include "checks/result_gate.h"
#include "cli/commands.h"
#include "cli/tables.h"
#include "config/config.h"
#include "core/shape_algebra.h"
#include "io/results_json.h"
#include "report/report.h"
#include "runtime/device_info.h"

namespace fa2b {
namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

CaseResult run_case(const std::string& role, std::int64_t T, std::int64_t predicted,
                    Status status = Status::ok, double median_ms = 1.0) {
  CaseResult r;
  r.c.sweep = "s";
  r.c.backend = role;
  r.c.role = role;
  r.c.B = 1;
  r.c.H = 4;
  r.c.H_kv = 4;
  r.c.T_q = T;
  r.c.T_k = T;
  r.c.D = 64;
  r.c.dtype = DType::fp16;
  r.c.causal = true;
  r.target = "cuda";
  r.status = status;
  r.memory.predicted_bytes = predicted;
  if (status == Status::ok) {
    r.time.median = r.time.mean = r.time.min = r.time.max = r.time.p10 = r.time.p90 = median_ms;
    r.time.n = 5;
    r.memory.peak_bytes = predicted;
    r.accuracy.checked = true;
    r.accuracy.max_abs_err = 1e-4;
    r.accuracy.rows_checked = 8;
  } else if (status == Status::oom) {
    r.reason = "out of memory";
    r.memory.requested_bytes = predicted;
  } else {
    r.reason = "kernel crashed";
  }
  return r;
}

nlohmann::json device_with(std::int64_t capacity) {
  return {{"kind", "cuda"}, {"capacity_bytes", capacity}, {"capacity_source", "device_memory"}};
}

CheckSpec status_where(const std::string& expect, const std::string& where,
                       const std::string& backend = "naive") {
  CheckSpec s;
  s.name = "status_" + expect + "_" + where;
  s.kind = "status";
  s.expect = expect;
  s.where = where;
  s.select.match["backend"] = {backend};
  return s;
}

CheckSpec ratio_both_ran(int min_pairs = 1) {
  CheckSpec s;
  s.name = "naive_over_fa2";
  s.kind = "ratio";
  s.metric = "time_median_ms";
  s.numerator = "naive";
  s.denominator = "fa2";
  s.op = ">=";
  s.value = 1;
  s.pairs = "both_ran";
  s.min_pairs = min_pairs;
  return s;
}

// naive fits at T 1024 and 2048 (10 and 40 GiB), exceeds at 4096 (160 GiB) on a 80 GiB device;
// on a 200 GiB device it fits everywhere.
std::vector<CaseResult> sweep_on(std::int64_t capacity) {
  std::vector<CaseResult> rs;
  for (std::int64_t T : {1024, 2048, 4096}) {
    const std::int64_t naive_bytes = 10 * kGiB * (T / 1024) * (T / 1024);
    const Status st = naive_bytes <= capacity ? Status::ok : Status::oom;
    rs.push_back(run_case("naive", T, naive_bytes, st, 4.0));
    rs.push_back(run_case("fa2", T, kGiB, Status::ok, 1.0));
  }
  return rs;
}

TEST(DeviceRelativeChecks, StatusWhereFitsAndExceedsHoldOnBothDevices) {
  const std::vector<CheckSpec> checks = {status_where("oom", "exceeds"),
                                         status_where("ok", "fits")};
  // 80 GiB: naive T=4096 exceeds and is oom; the others fit and ran.
  const auto small = evaluate_checks(checks, sweep_on(80 * kGiB), device_with(80 * kGiB));
  EXPECT_EQ(small[0].verdict, VerdictKind::pass) << small[0].detail;
  EXPECT_EQ(small[1].verdict, VerdictKind::pass) << small[1].detail;
  EXPECT_NE(small[0].detail.find("1 selected cases"), std::string::npos) << small[0].detail;
  // 200 GiB: nothing exceeds, so the oom check's premise does not hold: skipped, not error.
  const auto big = evaluate_checks(checks, sweep_on(200 * kGiB), device_with(200 * kGiB));
  EXPECT_EQ(big[0].verdict, VerdictKind::skipped) << big[0].detail;
  EXPECT_NE(big[0].detail.find("n/a on this device"), std::string::npos) << big[0].detail;
  EXPECT_EQ(big[1].verdict, VerdictKind::pass) << big[1].detail;
}

TEST(DeviceRelativeChecks, StatusWhereFailsWhenACaseThatFitsDidNotRun) {
  auto rs = sweep_on(80 * kGiB);
  rs[2] = run_case("naive", 2048, 40 * kGiB, Status::oom);  // fits, yet oom: a regression
  const auto v = evaluate_checks({status_where("ok", "fits")}, rs, device_with(80 * kGiB));
  EXPECT_EQ(v[0].verdict, VerdictKind::fail) << v[0].detail;
}

TEST(DeviceRelativeChecks, WhereWithoutRecordedCapacityIsAnError) {
  const auto v = evaluate_checks({status_where("ok", "fits")}, sweep_on(80 * kGiB));
  EXPECT_EQ(v[0].verdict, VerdictKind::error);
  EXPECT_NE(v[0].detail.find("capacity_bytes"), std::string::npos) << v[0].detail;
}

TEST(DeviceRelativeChecks, RatioOverPairsWhereBothRan) {
  // 80 GiB: two of three pairs ran; the oom one is left out and named.
  const auto v =
      evaluate_checks({ratio_both_ran()}, sweep_on(80 * kGiB), device_with(80 * kGiB))[0];
  EXPECT_EQ(v.verdict, VerdictKind::pass) << v.detail;
  EXPECT_NE(v.detail.find("2 pairs"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("left out"), std::string::npos) << v.detail;
  // Needing three pairs: skipped with the reason, not error.
  const auto three =
      evaluate_checks({ratio_both_ran(3)}, sweep_on(80 * kGiB), device_with(80 * kGiB))[0];
  EXPECT_EQ(three.verdict, VerdictKind::skipped) << three.detail;
  EXPECT_NE(three.detail.find("is oom"), std::string::npos) << three.detail;
  // On the big device all three ran.
  EXPECT_EQ(evaluate_checks({ratio_both_ran(3)}, sweep_on(200 * kGiB), device_with(200 * kGiB))[0]
                .verdict,
            VerdictKind::pass);
  // Without pairs: both_ran the oom pair is still an error (the old, strict rule).
  CheckSpec strict = ratio_both_ran();
  strict.pairs.clear();
  EXPECT_EQ(evaluate_checks({strict}, sweep_on(80 * kGiB), device_with(80 * kGiB))[0].verdict,
            VerdictKind::error);
}

TEST(DeviceRelativeChecks, NoPairRanIsSkippedNeverError) {
  std::vector<CaseResult> rs = {run_case("naive", 8192, 500 * kGiB, Status::oom),
                                run_case("fa2", 8192, kGiB)};
  const Verdict v = evaluate_checks({ratio_both_ran()}, rs, device_with(80 * kGiB))[0];
  EXPECT_EQ(v.verdict, VerdictKind::skipped) << v.detail;
  EXPECT_NE(v.detail.find("naive/"), std::string::npos) << v.detail;
}

TEST(DeviceRelativeChecks, BothRanNeverHidesACrashedCase) {
  std::vector<CaseResult> rs = {run_case("naive", 8192, 500 * kGiB, Status::error),
                                run_case("fa2", 8192, kGiB)};
  const Verdict v = evaluate_checks({ratio_both_ran()}, rs, device_with(80 * kGiB))[0];
  EXPECT_EQ(v.verdict, VerdictKind::error) << v.detail;
}

TEST(DeviceRelativeChecks, GateTurnsSkippedIntoErrorForACrashedCase) {
  // A status check skipped on this device still becomes error when it selects a crashed case.
  std::vector<CaseResult> rs = sweep_on(200 * kGiB);
  rs[0].status = Status::error;
  rs[0].reason = "illegal memory access";
  const std::vector<CheckSpec> checks = {status_where("oom", "exceeds")};
  std::vector<Verdict> v = evaluate_checks(checks, rs, device_with(200 * kGiB));
  ASSERT_EQ(v[0].verdict, VerdictKind::skipped);
  GateProblem p;
  p.kind = GateProblemKind::case_failed;
  p.result = &rs[0];
  p.reason = "naive case in error";
  apply_gate({p}, checks, v);
  EXPECT_EQ(v[0].verdict, VerdictKind::error);
  EXPECT_EQ(verdict_exit_code(v), kExitCheckFailed);
}

TEST(DeviceRelativeChecks, AccuracyRuleOverPairsWhereBothRan) {
  CheckSpec s;
  s.name = "fa2_within_2x_naive";
  s.kind = "accuracy_rule";
  s.metric = "max_abs_err";
  s.baseline = "naive";
  s.pairs = "both_ran";
  auto rs = sweep_on(80 * kGiB);
  EXPECT_EQ(evaluate_checks({s}, rs, device_with(80 * kGiB))[0].verdict, VerdictKind::pass);
  s.min_pairs = 3;
  EXPECT_EQ(evaluate_checks({s}, rs, device_with(80 * kGiB))[0].verdict, VerdictKind::skipped);
  s.pairs.clear();
  s.min_pairs = 1;
  EXPECT_EQ(evaluate_checks({s}, rs, device_with(80 * kGiB))[0].verdict, VerdictKind::error);
}

TEST(DeviceRelativeChecks, TargetScopesAGpuClaimAndSkipsElsewhere) {
  CheckSpec s = ratio_both_ran();
  s.value = 3;  // naive is 4x slower in sweep_on: holds
  s.target = "cuda";
  nlohmann::json cpu = device_with(80 * kGiB);
  cpu["kind"] = "cpu";
  const Verdict on_cpu = evaluate_checks({s}, sweep_on(80 * kGiB), cpu)[0];
  EXPECT_EQ(on_cpu.verdict, VerdictKind::skipped) << on_cpu.detail;
  EXPECT_NE(on_cpu.detail.find("cuda target"), std::string::npos) << on_cpu.detail;
  EXPECT_EQ(evaluate_checks({s}, sweep_on(80 * kGiB), device_with(80 * kGiB))[0].verdict,
            VerdictKind::pass);
  s.value = 5;  // on the GPU the claim is judged, and can fail
  EXPECT_EQ(evaluate_checks({s}, sweep_on(80 * kGiB), device_with(80 * kGiB))[0].verdict,
            VerdictKind::fail);
}

TEST(DeviceRelativeChecks, MinCcScopesAHopperClaimAndSkipsOlderDevices) {
  // A status claim about a Hopper-only backend: every fa2 case "unsupported" stands in for
  // fa3 on an Ampere card.
  std::vector<CaseResult> rs = sweep_on(80 * kGiB);
  for (CaseResult& r : rs)
    if (r.c.backend == "fa2") r.status = Status::unsupported;
  CheckSpec s = status_where("ok", "", "fa2");
  s.min_cc = "9.0";
  nlohmann::json ampere = device_with(80 * kGiB);
  ampere["cc"] = "8.0";
  const Verdict older = evaluate_checks({s}, rs, ampere)[0];
  EXPECT_EQ(older.verdict, VerdictKind::skipped) << older.detail;
  EXPECT_NE(older.detail.find("compute capability 9.0 or newer"), std::string::npos)
      << older.detail;
  // On a Hopper card (and a newer one) the claim is judged, and fails where fa2 did not run.
  for (const char* cc : {"9.0", "10.0"}) {
    nlohmann::json d = device_with(80 * kGiB);
    d["cc"] = cc;
    EXPECT_EQ(evaluate_checks({s}, rs, d)[0].verdict, VerdictKind::fail) << cc;
  }
  // The CPU target runs every backend: judged; so is a file that records no capability.
  nlohmann::json cpu = device_with(80 * kGiB);
  cpu["kind"] = "cpu";
  EXPECT_EQ(evaluate_checks({s}, rs, cpu)[0].verdict, VerdictKind::fail);
  EXPECT_EQ(evaluate_checks({s}, rs, device_with(80 * kGiB))[0].verdict, VerdictKind::fail);
  // 8.9 (Ada) is below 9.0 as a pair, not as text.
  ampere["cc"] = "8.9";
  EXPECT_EQ(evaluate_checks({s}, rs, ampere)[0].verdict, VerdictKind::skipped);
}

TEST(DeviceRelativeChecks, MinCcIsParsedAndBadValuesNameTheField) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "name": "cc", "defaults": {"H": 2, "D": 64, "T": 64},
    "sweeps": [{"name": "s", "backends": ["fa2"]}],
    "checks": [{"name": "c", "kind": "status", "expect": "ok", "min_cc": "9.0"}]})");
  EXPECT_EQ(parse_config(j, "cc.json").checks[0].min_cc, "9.0");
  j["checks"][0]["min_cc"] = 9.0;
  try {
    parse_config(j, "cc.json");
    ADD_FAILURE() << "a number was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(e.messages()[0].find("/checks/0/min_cc: expected a compute capability"),
              std::string::npos)
        << e.messages()[0];
  }
}

TEST(SkippedVerdict, RoundTripsAndNeverFails) {
  ResultSet rs;
  rs.target = "cpu";
  Verdict a;
  a.name = "a";
  a.kind = "status";
  a.verdict = VerdictKind::pass;
  Verdict b = a;
  b.name = "b";
  b.verdict = VerdictKind::skipped;
  b.detail = "n/a on this device: naive oom at T=8192";
  rs.checks = {a, b};
  const nlohmann::json j = to_json(rs);
  EXPECT_EQ(j.at("checks").at(1).at("verdict"), "skipped");
  EXPECT_EQ(j.at("summary").at("checks_skipped"), 1);
  const ResultSet back = result_set_from_json(j);
  ASSERT_EQ(back.checks.size(), 2u);
  EXPECT_EQ(back.checks[1].verdict, VerdictKind::skipped);
  const std::string xml = junit_text(rs);
  EXPECT_NE(xml.find("<skipped message=\"n/a on this device"), std::string::npos) << xml;
  EXPECT_NE(checks_csv_text(rs).find("b,status,skipped"), std::string::npos);
  EXPECT_NE(summary_md_text(rs).find("skipped"), std::string::npos);
  EXPECT_EQ(verdict_exit_code(rs.checks), kExitOk);
  rs.checks.push_back(a);
  rs.checks.back().verdict = VerdictKind::fail;
  EXPECT_EQ(verdict_exit_code(rs.checks), kExitCheckFailed);
}

TEST(DeviceCapacity, BudgetDeviceOrHostMemory) {
  nlohmann::json gpu = {{"kind", "cuda"}, {"memory_bytes", 80 * kGiB}};
  EXPECT_EQ(with_capacity(gpu, 0).at("capacity_bytes"), 80 * kGiB);
  EXPECT_EQ(with_capacity(gpu, 0).at("capacity_source"), "device_memory");
  EXPECT_EQ(with_capacity(gpu, 8 * kGiB).at("capacity_bytes"), 8 * kGiB);
  EXPECT_EQ(with_capacity(gpu, 8 * kGiB).at("capacity_source"), "memory_budget");
  EXPECT_EQ(with_capacity(gpu, 800 * kGiB).at("capacity_bytes"), 80 * kGiB);
  nlohmann::json cpu = {{"kind", "cpu"}};
  EXPECT_EQ(with_capacity(cpu, 1 << 20).at("capacity_bytes"), 1 << 20);
  EXPECT_EQ(with_capacity(cpu, 0).at("capacity_source"), "host_memory");
  EXPECT_EQ(check_context(with_capacity(gpu, 0)).capacity_bytes.value_or(0), 80 * kGiB);
}

TEST(DeviceRelativeConfig, ParsesWherePairsAndMinPairs) {
  const nlohmann::json raw = nlohmann::json::parse(R"({
    "defaults": {"B": 1, "H": 2, "D": 32},
    "sweeps": [{"name": "s", "backends": ["naive", "fa2"], "grid": {"T": [64, 128]}}],
    "checks": [
      {"name": "a", "kind": "status", "expect": "oom", "where": "exceeds",
       "select": {"backend": "naive"}},
      {"name": "b", "kind": "ratio", "metric": "peak_bytes", "numerator": "naive",
       "denominator": "fa2", "op": ">", "value": 1, "pairs": "both_ran", "min_pairs": 2,
       "target": "cuda"}
    ]})");
  const Config c = parse_config(raw, "t.json");
  ASSERT_EQ(c.checks.size(), 2u);
  EXPECT_EQ(c.checks[0].where, "exceeds");
  EXPECT_EQ(c.checks[1].pairs, "both_ran");
  EXPECT_EQ(c.checks[1].min_pairs, 2);
  EXPECT_EQ(c.checks[1].target, "cuda");
}

TEST(DeviceRelativeConfig, RefusesBadValuesNamingTheField) {
  auto refused = [](const char* check) {
    const nlohmann::json raw = nlohmann::json::parse(std::string(
                                                         R"({"defaults": {"B": 1, "H": 2, "D": 32},
          "sweeps": [{"name": "s", "backends": ["naive", "fa2"], "grid": {"T": [64]}}],
          "checks": [)") + check + "]}");
    try {
      parse_config(raw, "t.json");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused(R"({"name": "a", "kind": "status", "expect": "ok", "where": "fit"})")
                .find("/checks/0/where"),
            std::string::npos);
  EXPECT_NE(refused(R"({"name": "a", "kind": "plan", "metric": "flops", "op": ">", "value": 0,
                       "where": "fits"})")
                .find("/checks/0"),
            std::string::npos);
  EXPECT_NE(refused(R"({"name": "a", "kind": "ratio", "metric": "peak_bytes",
                       "numerator": "naive", "denominator": "fa2", "op": ">", "value": 1,
                       "min_pairs": 2})")
                .find("/checks/0/min_pairs"),
            std::string::npos);
}

TEST(DeviceRelativeModelChecks, PeakRatioWithAnOomSideIsSkippedNotAPassOnRequestedBytes) {
  auto model_case = [](const std::string& role, Status st, std::int64_t peak,
                       std::int64_t predicted) {
    ModelCaseRecord r;
    r.id = role + "/L1-T2048";
    r.shape_key = "L1-T2048";
    r.backend = r.role = role;
    r.sweep = "m";
    r.status = st;
    r.params = {{"T", 2048}};
    r.peak_bytes = peak;
    r.predicted_bytes = predicted;
    r.requested_bytes = st == Status::oom ? predicted : 0;
    return r;
  };
  // naive oom on an 80 GiB card: its tracker stopped at 100 GiB's request.
  std::vector<ModelCaseRecord> cases = {model_case("fa2", Status::ok, 36 * kGiB, 36 * kGiB),
                                        model_case("naive", Status::oom, 100 * kGiB, 120 * kGiB)};
  CheckSpec s;
  s.name = "fa2_peak_vs_naive";
  s.kind = "ratio";
  s.metric = "peak_bytes";
  s.numerator = "fa2";
  s.denominator = "naive";
  s.op = "<=";
  s.value = 0.35;
  const nlohmann::json dev = device_with(80 * kGiB);
  EXPECT_EQ(evaluate_model_checks({s}, cases, dev)[0].verdict, VerdictKind::error);
  s.pairs = "both_ran";
  const Verdict v = evaluate_model_checks({s}, cases, dev)[0];
  EXPECT_EQ(v.verdict, VerdictKind::skipped) << v.detail;
  CheckSpec st = status_where("oom", "exceeds");
  EXPECT_EQ(evaluate_model_checks({st}, cases, dev)[0].verdict, VerdictKind::pass);
  st = status_where("ok", "fits", "fa2");
  EXPECT_EQ(evaluate_model_checks({st}, cases, dev)[0].verdict, VerdictKind::pass);
  // On a 141 GiB card naive ran: the ratio is judged.
  cases[1] = model_case("naive", Status::ok, 110 * kGiB, 120 * kGiB);
  EXPECT_EQ(evaluate_model_checks({s}, cases, device_with(141 * kGiB))[0].verdict,
            VerdictKind::pass);
}

}  // namespace
}  // namespace fa2b
