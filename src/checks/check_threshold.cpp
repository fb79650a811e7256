// SPDX-License-Identifier: Apache-2.0
// `threshold`: a metric of every selected case against a bound.
#include <fmt/format.h>

#include "checks/check_common.h"

namespace fa2b::checks {

Verdict evaluate_threshold(const CheckSpec& spec, const std::vector<CaseResult>& results,
                           const CheckContext& ctx) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  if (select(spec, results).empty()) return error_verdict(v, no_match_detail(spec.select));
  if (const std::string why = where_unjudgeable(spec, ctx); !why.empty())
    return error_verdict(v, why);
  std::size_t outside = 0;
  const auto selected = select_where(spec, ctx, results, outside);
  if (selected.empty()) {
    return skipped_verdict(
        v, fmt::format("none of the {} selected cases {}", outside, where_text(spec, ctx)));
  }

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
