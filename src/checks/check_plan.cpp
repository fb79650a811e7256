// SPDX-License-Identifier: Apache-2.0
// `plan`: a predicted number of every selected case (optionally over a second one) against a
// bound; needs no measurement.
#include <fmt/format.h>

#include <algorithm>

#include "checks/check_common.h"
#include "core/shape_algebra.h"

namespace fa2b::checks {
namespace {

bool known_plan_metric(const std::string& name) {
  const auto& names = plan_metric_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Verdict evaluate_plan(const CheckSpec& spec, const std::vector<Case>& cases) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  if (!known_plan_metric(spec.metric))
    return error_verdict(v, fmt::format("unknown plan metric \"{}\"", spec.metric));
  if (!spec.divide_by.empty() && !known_plan_metric(spec.divide_by))
    return error_verdict(v, fmt::format("unknown plan metric \"{}\"", spec.divide_by));
  const std::string what =
      spec.divide_by.empty() ? spec.metric : spec.metric + " / " + spec.divide_by;

  std::size_t selected = 0, failing = 0;
  const Case* worst_case = nullptr;
  double worst_value = kNaN;
  for (const Case& c : cases) {
    if (!spec.select.matches(c)) continue;
    ++selected;
    double value = *plan_metric_value(c, spec.metric);
    if (!spec.divide_by.empty()) {
      const double den = *plan_metric_value(c, spec.divide_by);
      if (den == 0) {
        return error_verdict(v, fmt::format("{} of {} is 0", spec.divide_by, c.id()));
      }
      value /= den;
    }
    if (!compare(value, spec.op, spec.value)) ++failing;
    if (!worst_case || worse(value, worst_value, spec.op, spec.value)) {
      worst_case = &c;
      worst_value = value;
    }
  }
  if (selected == 0) return error_verdict(v, no_match_detail(spec.select));
  v.measured = worst_value;
  const bool pass = failing == 0;
  v.verdict = pass ? VerdictKind::pass : VerdictKind::fail;
  v.detail = fmt::format("worst predicted {} = {} at {}", what, num(worst_value), worst_case->id());
  v.detail += pass ? " (" + plural(selected, "case") + ")"
                   : fmt::format(" ({} of {} cases outside {})", failing, selected, v.threshold);
  return v;
}

}  // namespace fa2b::checks
