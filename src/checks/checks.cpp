// SPDX-License-Identifier: Apache-2.0
// Dispatcher: one verdict per check, in config order.
#include "checks/checks.h"

#include <fmt/format.h>

#include "checks/check_common.h"

namespace fa2b {
namespace {

Verdict evaluate_one(const CheckSpec& spec, const std::vector<CaseResult>& results,
                     const std::vector<Case>& cases, const CheckContext& ctx) {
  using namespace checks;
  if (auto off = scope_skip(spec, ctx)) return *off;
  if (spec.kind == "threshold") return evaluate_threshold(spec, results, ctx);
  if (spec.kind == "ratio") return evaluate_ratio(spec, results, ctx);
  if (spec.kind == "growth") return evaluate_growth(spec, results, ctx);
  if (spec.kind == "status") return evaluate_status(spec, results, ctx);
  if (spec.kind == "accuracy_rule") return evaluate_accuracy_rule(spec, results, ctx);
  if (spec.kind == "plan") return evaluate_plan(spec, cases);
  return error_verdict(start_verdict(spec, ""),
                       fmt::format("unknown check kind \"{}\"", spec.kind));
}

}  // namespace

CheckContext check_context(const nlohmann::json& device) {
  CheckContext ctx;
  if (!device.is_object()) return ctx;
  const auto it = device.find("capacity_bytes");
  if (it != device.end() && it->is_number_integer() && it->get<std::int64_t>() > 0)
    ctx.capacity_bytes = it->get<std::int64_t>();
  ctx.target = device.value("kind", std::string());
  const auto cc = device.find("cc");
  if (cc != device.end() && cc->is_string()) ctx.cc = cc->get<std::string>();
  const auto src = device.find("capacity_source");
  if (src != device.end() && src->is_string()) ctx.capacity_source = src->get<std::string>();
  // Files written before capacity_bytes existed: a GPU's memory, assumed unbudgeted (such
  // files do not record --memory-budget), and said so in every detail. The CPU target's host
  // memory was never recorded: no capacity.
  if (!ctx.capacity_bytes && device.value("kind", std::string()) == "cuda") {
    const auto mem = device.find("memory_bytes");
    if (mem != device.end() && mem->is_number_integer() && mem->get<std::int64_t>() > 0) {
      ctx.capacity_bytes = mem->get<std::int64_t>();
      ctx.capacity_source = "device_memory_assumed";
    }
  }
  return ctx;
}

std::vector<Verdict> evaluate_checks(const std::vector<CheckSpec>& checks,
                                     const std::vector<CaseResult>& results,
                                     const nlohmann::json& device) {
  const CheckContext ctx = check_context(device);
  std::vector<Case> cases;
  cases.reserve(results.size());
  for (const CaseResult& r : results) cases.push_back(r.c);
  std::vector<Verdict> out;
  out.reserve(checks.size());
  for (const CheckSpec& spec : checks) out.push_back(evaluate_one(spec, results, cases, ctx));
  return out;
}

std::vector<Verdict> evaluate_plan_checks(const std::vector<CheckSpec>& checks,
                                          const std::vector<Case>& cases) {
  std::vector<Verdict> out;
  for (const CheckSpec& spec : checks)
    if (spec.kind == "plan") out.push_back(checks::evaluate_plan(spec, cases));
  return out;
}

}  // namespace fa2b
