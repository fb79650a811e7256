// SPDX-License-Identifier: Apache-2.0
// `threshold`: a metric of every selected case against a bound.
#include <fmt/format.h>

#include "checks/check_common.h"

namespace fa2b::checks {

Verdict evaluate_threshold(const CheckSpec& spec, const std::vector<CaseResult>& results,
                           const CheckContext& ctx) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  const auto selected = judged_cases(spec, ctx, results, v);
  if (selected.empty()) return v;

  BoundTally t;
  for (const CaseResult* r : selected) {
    const MetricOrWhy m = metric_of(*r, spec.metric);
    if (m.value) {
      t.add(*m.value, spec, r->c.id());
    } else {
      t.problem(m.why);
    }
  }
  return threshold_verdict(v, spec, t, selected.size());
}

}  // namespace fa2b::checks
