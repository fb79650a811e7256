// `threshold`: a metric of every selected case against a bound.
#include <fmt/format.h>

#include "checks/check_common.h"

namespace fa2b::checks {

Verdict evaluate_threshold(const CheckSpec& spec, const std::vector<CaseResult>& results) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  const auto selected = select(spec, results);
  if (selected.empty()) return error_verdict(v, no_match_detail(spec.select));

  std::string first_problem;
  std::size_t problems = 0, failing = 0;
  const CaseResult* worst_case = nullptr;
  double worst_value = kNaN;
  for (const CaseResult* r : selected) {
    const MetricOrWhy m = metric_of(*r, spec.metric);
    if (!m.value) {
      if (problems++ == 0) first_problem = m.why;
      continue;
    }
    if (!compare(*m.value, spec.op, spec.value)) ++failing;
    if (!worst_case || worse(*m.value, worst_value, spec.op, spec.value)) {
      worst_case = r;
      worst_value = *m.value;
    }
  }
  if (problems > 0) {
    return error_verdict(
        v, fmt::format("{}{}; {} of {} selected cases have no {}", first_problem,
                       and_more(problems - 1), problems, selected.size(), spec.metric));
  }
  v.measured = worst_value;
  const bool pass = failing == 0;
  v.verdict = pass ? VerdictKind::pass : VerdictKind::fail;
  v.detail = fmt::format("worst {} = {} at {}", spec.metric, num(worst_value), worst_case->c.id());
  v.detail +=
      pass ? " (" + plural(selected.size(), "case") + ")"
           : fmt::format(" ({} of {} cases outside {})", failing, selected.size(), v.threshold);
  return v;
}

}  // namespace fa2b::checks
