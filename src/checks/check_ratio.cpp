// SPDX-License-Identifier: Apache-2.0
// `ratio`: metric(numerator case) / metric(denominator case) on otherwise equal shapes.
#include <fmt/format.h>

#include "checks/check_common.h"

namespace fa2b::checks {

Verdict evaluate_ratio(const CheckSpec& spec, const std::vector<CaseResult>& results) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  if (spec.numerator.empty() || spec.denominator.empty())
    return error_verdict(v, "ratio check needs a numerator and a denominator backend");
  const auto selected = select(spec, results);
  if (selected.empty()) return error_verdict(v, no_match_detail(spec.select));

  BoundTally t;
  std::size_t pairs = 0;
  for (const CaseResult* num_case : selected) {
    if (!is_backend(num_case->c, spec.numerator)) continue;
    ++pairs;
    const CaseResult* den_case = find_partner(num_case->c, spec.denominator, results);
    if (!den_case) {
      t.problem(fmt::format("no {} case with the shape of {}", spec.denominator, num_case->c.id()));
      continue;
    }
    t.add_ratio(metric_of(*num_case, spec.metric), metric_of(*den_case, spec.metric), spec,
                den_case->c.id(), num_case->c.shape_key());
  }
  return ratio_verdict(v, spec, t, pairs);
}

}  // namespace fa2b::checks
