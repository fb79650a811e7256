// SPDX-License-Identifier: Apache-2.0
// `status`: every selected case ended with the expected status.
#include <fmt/format.h>

#include "checks/check_common.h"

namespace fa2b::checks {

Verdict evaluate_status(const CheckSpec& spec, const std::vector<CaseResult>& results,
                        const CheckContext& ctx) {
  Verdict v = start_verdict(
      spec, "status == " + spec.expect + (spec.where.empty() ? "" : " where " + spec.where));
  const auto expect = parse_status(spec.expect);
  if (!expect) {
    return error_verdict(v, fmt::format("unknown status \"{}\" (ok, unsupported, oom, error, "
                                        "timeout)",
                                        spec.expect));
  }
  const auto selected = judged_cases(spec, ctx, results, v);
  if (selected.empty()) return v;
  const std::string scope = spec.where.empty() ? std::string() : " (" + where_text(spec, ctx) + ")";

  std::size_t mismatches = 0;
  std::string first;
  for (const CaseResult* r : selected) {
    if (r->status == *expect) continue;
    if (mismatches++ == 0) {
      first = fmt::format("{} is {} (expected {})", r->c.id(), to_string(r->status), spec.expect);
      if (!r->reason.empty()) first += ": " + r->reason;
    }
  }
  v.measured = static_cast<double>(mismatches);
  if (mismatches == 0) {
    v.verdict = VerdictKind::pass;
    v.detail = fmt::format("all {} selected cases{} are {}", selected.size(), scope, spec.expect);
  } else {
    v.verdict = VerdictKind::fail;
    v.detail = fmt::format("{}{}; {} of {} cases{} mismatch", first, and_more(mismatches - 1),
                           mismatches, selected.size(), scope);
  }
  return v;
}

}  // namespace fa2b::checks
