// SPDX-License-Identifier: Apache-2.0
// `ratio`: metric(numerator case) / metric(denominator case) on otherwise equal shapes.
#include <fmt/format.h>

#include "checks/check_common.h"

namespace fa2b::checks {

std::string PairFilter::why_none(const CheckSpec& spec, const CheckContext& ctx,
                                 std::size_t counted) const {
  std::string out =
      fmt::format("{} of {} selected pairs left to judge (at least {} needed)", counted,
                  counted + dropped(), spec.pairs == "both_ran" ? spec.min_pairs : 1);
  if (outside > 0) {
    out += fmt::format("; {} with a case outside \"where\": \"{}\" ({})", plural(outside, "pair"),
                       spec.where, where_text(spec, ctx));
  }
  if (did_not_run_pairs > 0) {
    out += fmt::format("; {} where a case did not run: {}{}", plural(did_not_run_pairs, "pair"),
                       first_did_not_run, and_more(did_not_run_pairs - 1));
  }
  return out;
}

std::string PairFilter::note() const {
  if (did_not_run_pairs == 0) return {};
  return fmt::format("; {} left out (did not run): {}{}", plural(did_not_run_pairs, "pair"),
                     first_did_not_run, and_more(did_not_run_pairs - 1));
}

bool PairFilter::keep(const CheckSpec& spec, const CheckContext& ctx, const CaseResult& a,
                      const CaseResult& b) {
  if (!where_keeps(spec, ctx, a.memory.predicted_bytes) ||
      !where_keeps(spec, ctx, b.memory.predicted_bytes)) {
    ++outside;
    return false;
  }
  if (spec.pairs != "both_ran") return true;
  for (const CaseResult* r : {&a, &b}) {
    if (!did_not_run(r->status)) continue;
    if (did_not_run_pairs++ == 0) {
      first_did_not_run = fmt::format("{} is {}", r->c.id(), to_string(r->status));
      if (!r->reason.empty()) first_did_not_run += " (" + r->reason + ")";
    }
    return false;
  }
  return true;
}

Verdict evaluate_ratio(const CheckSpec& spec, const std::vector<CaseResult>& results,
                       const CheckContext& ctx) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  if (spec.numerator.empty() || spec.denominator.empty())
    return error_verdict(v, "ratio check needs a numerator and a denominator backend");
  const auto selected = select(spec, results);
  if (selected.empty()) return error_verdict(v, no_match_detail(spec.select));
  if (const std::string why = where_unjudgeable(spec, ctx); !why.empty())
    return error_verdict(v, why);

  BoundTally t;
  PairFilter filter;
  std::size_t pairs = 0;
  bool any_numerator = false;
  for (const CaseResult* num_case : selected) {
    if (!is_backend(num_case->c, spec.numerator)) continue;
    any_numerator = true;
    const CaseResult* den_case = find_partner(num_case->c, spec.denominator, results);
    if (!den_case) {
      ++pairs;
      t.problem(fmt::format("no {} case with the shape of {}", spec.denominator, num_case->c.id()));
      continue;
    }
    if (!filter.keep(spec, ctx, *num_case, *den_case)) continue;
    ++pairs;
    t.add_ratio(metric_of(*num_case, spec.metric), metric_of(*den_case, spec.metric), spec,
                den_case->c.id(), num_case->c.shape_key());
  }
  // Too few pairs left by `where` or `pairs: both_ran`: the premise does not hold here. A pair
  // that cannot be judged (a case in error, no partner) is an error first.
  const std::size_t need = spec.pairs == "both_ran" ? static_cast<std::size_t>(spec.min_pairs) : 1;
  if (t.problems == 0 && any_numerator && pairs < need &&
      (filter.dropped() > 0 || spec.pairs == "both_ran")) {
    return skipped_verdict(v, filter.why_none(spec, ctx, pairs));
  }
  Verdict out = ratio_verdict(v, spec, t, pairs);
  if (out.verdict == VerdictKind::pass || out.verdict == VerdictKind::fail)
    out.detail += filter.note();
  return out;
}

}  // namespace fa2b::checks
