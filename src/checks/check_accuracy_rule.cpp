// SPDX-License-Identifier: Apache-2.0
// `accuracy_rule` (flash-attention's test rule): the error of a case is at most `factor` times
// the error of the baseline backend on the same shape, plus `atol`.
#include <fmt/format.h>

#include "checks/check_common.h"

namespace fa2b::checks {

Verdict evaluate_accuracy_rule(const CheckSpec& spec, const std::vector<CaseResult>& results,
                               const CheckContext& ctx) {
  Verdict v = start_verdict(spec, "<= 1");
  const std::string metric = spec.metric.empty() ? "max_abs_err" : spec.metric;
  const std::string baseline = spec.baseline.empty() ? "naive" : spec.baseline;
  const auto selected = select(spec, results);
  if (selected.empty()) return error_verdict(v, no_match_detail(spec.select));
  if (const std::string why = where_unjudgeable(spec, ctx); !why.empty())
    return error_verdict(v, why);

  PairFilter filter;
  bool any_subject = false;
  std::string first_problem;
  std::size_t compared = 0, problems = 0, failing = 0;
  const CaseResult* worst_case = nullptr;
  double worst_value = kNaN, worst_metric = kNaN, worst_bound = kNaN;
  for (const CaseResult* r : selected) {
    if (is_backend(r->c, baseline)) continue;  // the baseline is the yardstick, not a subject
    any_subject = true;
    auto problem = [&](std::string why) {
      if (problems++ == 0) first_problem = std::move(why);
    };
    const CaseResult* base = find_partner(r->c, baseline, results);
    if (!base) {
      ++compared;
      problem(fmt::format("no {} case with the shape of {}", baseline, r->c.id()));
      continue;
    }
    if (!filter.keep(spec, ctx, *r, *base)) continue;
    ++compared;
    const MetricOrWhy m = metric_of(*r, metric);
    const MetricOrWhy b = metric_of(*base, metric);
    if (!m.value || !b.value) {
      problem(!m.value ? m.why : b.why);
      continue;
    }
    const double bound = spec.factor * *b.value + spec.atol;
    if (!(bound > 0)) {
      problem(fmt::format("bound {} * {} + {} is not positive for {}", spec.factor, num(*b.value),
                          spec.atol, r->c.id()));
      continue;
    }
    const double ratio = *m.value / bound;
    if (!compare(ratio, "<=", 1.0)) ++failing;
    if (!worst_case || worse(ratio, worst_value, "<=", 1.0)) {
      worst_case = r;
      worst_value = ratio;
      worst_metric = *m.value;
      worst_bound = bound;
    }
  }
  if (!any_subject) {
    return error_verdict(v, fmt::format("the selection {} holds only {} cases",
                                        describe_selector(spec.select), baseline));
  }
  const std::size_t need = spec.pairs == "both_ran" ? static_cast<std::size_t>(spec.min_pairs) : 1;
  if (problems == 0 && compared < need && (filter.dropped() > 0 || spec.pairs == "both_ran")) {
    return skipped_verdict(v, filter.why_none(spec, ctx, compared));
  }
  if (problems > 0) {
    return error_verdict(v, fmt::format("{}{}; {} of {} cases could not be compared", first_problem,
                                        and_more(problems - 1), problems, compared));
  }
  v.measured = worst_value;
  const bool pass = failing == 0;
  v.verdict = pass ? VerdictKind::pass : VerdictKind::fail;
  v.detail = fmt::format("worst {}: {} = {} vs {} * {}'s + {} = {}", worst_case->c.id(), metric,
                         num(worst_metric), spec.factor, baseline, spec.atol, num(worst_bound));
  v.detail += pass ? " (" + plural(compared, "case") + ")"
                   : fmt::format(" ({} of {} cases over the bound)", failing, compared);
  v.detail += filter.note();
  return v;
}

}  // namespace fa2b::checks
