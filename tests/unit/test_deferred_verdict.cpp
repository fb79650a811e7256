// SPDX-License-Identifier: Apache-2.0
// The `deferred` verdict of a shard's check: written and read back, skipped in JUnit, and never
// a failure of the exit code (while fail and error still are).
#include <gtest/gtest.h>

#include <string>

#include "app/exit_codes.h"
#include "cli/commands.h"
#include "cli/tables.h"
#include "core/result.h"
#include "io/results_json.h"
#include "report/report.h"

namespace fa2b {
namespace {

Verdict verdict(const char* name, VerdictKind kind) {
  Verdict v;
  v.name = name;
  v.kind = "threshold";
  v.verdict = kind;
  v.detail = "selects 3 cases in other shards than 0/2 (6 in all)";
  return v;
}

TEST(DeferredVerdict, RoundTripsThroughResultsJson) {
  ResultSet rs;
  rs.target = "cpu";
  rs.checks = {verdict("a", VerdictKind::pass), verdict("b", VerdictKind::deferred)};
  const nlohmann::json j = to_json(rs);
  EXPECT_EQ(j.at("checks").at(1).at("verdict"), "deferred");
  EXPECT_EQ(j.at("summary").at("checks_deferred"), 1);
  const ResultSet back = result_set_from_json(j);
  ASSERT_EQ(back.checks.size(), 2u);
  EXPECT_EQ(back.checks[1].verdict, VerdictKind::deferred);
}

TEST(DeferredVerdict, SkippedInJunitAndNeverAFailure) {
  ResultSet rs;
  rs.checks = {verdict("a", VerdictKind::pass), verdict("b", VerdictKind::deferred)};
  const std::string xml = junit_text(rs);
  EXPECT_NE(xml.find("skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message="), std::string::npos) << xml;
  EXPECT_EQ(verdict_exit_code(rs.checks), kExitOk);
  rs.checks.push_back(verdict("c", VerdictKind::error));
  EXPECT_EQ(verdict_exit_code(rs.checks), kExitCheckFailed);
  rs.checks.back().verdict = VerdictKind::fail;
  EXPECT_EQ(verdict_exit_code(rs.checks), kExitCheckFailed);
}

}  // namespace
}  // namespace fa2b
