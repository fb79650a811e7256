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

  std::string first_problem;
  std::size_t pairs = 0, problems = 0, failing = 0;
  const CaseResult* worst_case = nullptr;
  double worst_value = kNaN;
  for (const CaseResult* num_case : selected) {
    if (!is_backend(num_case->c, spec.numerator)) continue;
    ++pairs;
    auto problem = [&](std::string why) {
      if (problems++ == 0) first_problem = std::move(why);
    };
    const CaseResult* den_case = find_partner(num_case->c, spec.denominator, results);
    if (!den_case) {
      problem(fmt::format("no {} case with the shape of {}", spec.denominator, num_case->c.id()));
      continue;
    }
    const MetricOrWhy n = metric_of(*num_case, spec.metric);
    const MetricOrWhy d = metric_of(*den_case, spec.metric);
    if (!n.value || !d.value) {
      problem(!n.value ? n.why : d.why);
      continue;
    }
    if (*d.value == 0) {
      problem(fmt::format("{} of {} is 0", spec.metric, den_case->c.id()));
      continue;
    }
    const double ratio = *n.value / *d.value;
    if (!compare(ratio, spec.op, spec.value)) ++failing;
    if (!worst_case || worse(ratio, worst_value, spec.op, spec.value)) {
      worst_case = num_case;
      worst_value = ratio;
    }
  }
  if (pairs == 0) {
    return error_verdict(v, fmt::format("no {} case in the selection {}", spec.numerator,
                                        describe_selector(spec.select)));
  }
  if (problems > 0) {
    return error_verdict(v, fmt::format("{}{}; {} of {} pairs have no ratio", first_problem,
                                        and_more(problems - 1), problems, pairs));
  }
  v.measured = worst_value;
  const bool pass = failing == 0;
  v.verdict = pass ? VerdictKind::pass : VerdictKind::fail;
  v.detail = fmt::format("worst {} {} / {} = {} at {}", spec.metric, spec.numerator,
                         spec.denominator, num(worst_value), worst_case->c.shape_key());
  v.detail += pass ? " (" + plural(pairs, "pair") + ")"
                   : fmt::format(" ({} of {} pairs outside {})", failing, pairs, v.threshold);
  return v;
}

}  // namespace fa2b::checks
