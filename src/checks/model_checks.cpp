// SPDX-License-Identifier: Apache-2.0
// status, threshold and ratio over transformer results. The bounds, ops, verdict wording and
// "error rather than a silent pass" rules are the attention checks' (check_common.h); only
// how a case is selected, named and measured differs.
#include "checks/model_checks.h"

#include <fmt/format.h>

#include "checks/check_common.h"

namespace fa2b {
namespace {

using namespace checks;

bool selected_by(const Selector& s, const ModelCaseRecord& r) {
  return s.matches_model(r.backend, r.role, r.sweep, r.params);
}

std::vector<const ModelCaseRecord*> select_model(const CheckSpec& spec,
                                                 const std::vector<ModelCaseRecord>& cases) {
  std::vector<const ModelCaseRecord*> out;
  for (const ModelCaseRecord& r : cases)
    if (selected_by(spec.select, r)) out.push_back(&r);
  return out;
}

bool is_model_backend(const ModelCaseRecord& r, const std::string& name) {
  return r.role == name || r.backend == name;
}

// The metric, or why there is none ("fa2/… is oom: needs 4 GiB").
MetricOrWhy model_metric_of(const ModelCaseRecord& r, const std::string& metric) {
  MetricOrWhy m;
  // A case that did not finish has no measured peak (an oom's tracker stopped at the failed
  // request): only an ok case's peak_bytes is one. requested_bytes and predicted_bytes are
  // recorded whatever the status.
  if (metric == "peak_bytes" && r.status != Status::ok) {
    m.why = fmt::format("{} is {}, so it has no measured peak_bytes", r.id, to_string(r.status));
    if (!r.reason.empty()) m.why += ": " + r.reason;
    return m;
  }
  m.value = model_metric_value(r, metric);
  if (m.value) return m;
  if (r.status != Status::ok) {
    m.why = fmt::format("{} is {}", r.id, to_string(r.status));
    if (!r.reason.empty()) m.why += ": " + r.reason;
  } else {
    m.why = fmt::format("{} has no {}", r.id, metric);
  }
  return m;
}

// The case of backend/role `backend` with the shape of `c`: one of c's sweep first, then any.
const ModelCaseRecord* model_partner(const ModelCaseRecord& c, const std::string& backend,
                                     const std::vector<ModelCaseRecord>& cases) {
  const ModelCaseRecord* other_sweep = nullptr;
  for (const ModelCaseRecord& r : cases) {
    if (&r == &c || !is_model_backend(r, backend) || r.shape_key != c.shape_key) continue;
    if (r.sweep == c.sweep) return &r;
    if (!other_sweep) other_sweep = &r;
  }
  return other_sweep;
}

// The selected cases that `where` keeps; `outside` counts the others.
std::vector<const ModelCaseRecord*> select_model_where(const CheckSpec& spec,
                                                       const CheckContext& ctx,
                                                       const std::vector<ModelCaseRecord>& cases,
                                                       std::size_t& outside) {
  outside = 0;
  std::vector<const ModelCaseRecord*> out;
  for (const ModelCaseRecord* r : select_model(spec, cases)) {
    if (where_keeps(spec, ctx, r->predicted_bytes)) {
      out.push_back(r);
    } else {
      ++outside;
    }
  }
  return out;
}

Verdict model_status(const CheckSpec& spec, const std::vector<ModelCaseRecord>& cases,
                     const CheckContext& ctx) {
  Verdict v = start_verdict(
      spec, "status == " + spec.expect + (spec.where.empty() ? "" : " where " + spec.where));
  const auto expect = parse_status(spec.expect);
  if (!expect) return error_verdict(v, fmt::format("unknown status \"{}\"", spec.expect));
  if (select_model(spec, cases).empty()) return error_verdict(v, no_match_detail(spec.select));
  if (const std::string why = where_unjudgeable(spec, ctx); !why.empty())
    return error_verdict(v, why);
  std::size_t outside = 0;
  const auto selected = select_model_where(spec, ctx, cases, outside);
  if (selected.empty()) {
    return skipped_verdict(
        v, fmt::format("none of the {} selected cases {}", outside, where_text(spec, ctx)));
  }
  std::size_t mismatches = 0;
  std::string first;
  for (const ModelCaseRecord* r : selected) {
    if (r->status == *expect) continue;
    if (mismatches++ == 0) {
      first = fmt::format("{} is {} (expected {})", r->id, to_string(r->status), spec.expect);
      if (!r->reason.empty()) first += ": " + r->reason;
    }
  }
  v.measured = static_cast<double>(mismatches);
  v.verdict = mismatches == 0 ? VerdictKind::pass : VerdictKind::fail;
  v.detail = mismatches == 0
                 ? fmt::format("all {} selected cases are {}", selected.size(), spec.expect)
                 : fmt::format("{}{}; {} of {} cases mismatch", first, and_more(mismatches - 1),
                               mismatches, selected.size());
  return v;
}

Verdict model_threshold(const CheckSpec& spec, const std::vector<ModelCaseRecord>& cases,
                        const CheckContext& ctx) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  if (select_model(spec, cases).empty()) return error_verdict(v, no_match_detail(spec.select));
  if (const std::string why = where_unjudgeable(spec, ctx); !why.empty())
    return error_verdict(v, why);
  std::size_t outside = 0;
  const auto selected = select_model_where(spec, ctx, cases, outside);
  if (selected.empty()) {
    return skipped_verdict(
        v, fmt::format("none of the {} selected cases {}", outside, where_text(spec, ctx)));
  }
  BoundTally t;
  for (const ModelCaseRecord* r : selected) {
    const MetricOrWhy m = model_metric_of(*r, spec.metric);
    if (m.value) {
      t.add(*m.value, spec, r->id);
    } else {
      t.problem(m.why);
    }
  }
  return threshold_verdict(v, spec, t, selected.size());
}

Verdict model_ratio(const CheckSpec& spec, const std::vector<ModelCaseRecord>& cases,
                    const CheckContext& ctx) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  if (spec.numerator.empty() || spec.denominator.empty())
    return error_verdict(v, "ratio check needs a numerator and a denominator backend");
  const auto selected = select_model(spec, cases);
  if (selected.empty()) return error_verdict(v, no_match_detail(spec.select));
  if (const std::string why = where_unjudgeable(spec, ctx); !why.empty())
    return error_verdict(v, why);
  BoundTally t;
  std::size_t pairs = 0, outside = 0, did_not = 0;
  std::string first_did_not;
  bool any_numerator = false;
  for (const ModelCaseRecord* n_case : selected) {
    if (!is_model_backend(*n_case, spec.numerator)) continue;
    any_numerator = true;
    const ModelCaseRecord* d_case = model_partner(*n_case, spec.denominator, cases);
    if (!d_case) {
      ++pairs;
      t.problem(fmt::format("no {} case with the shape of {}", spec.denominator, n_case->id));
      continue;
    }
    if (!where_keeps(spec, ctx, n_case->predicted_bytes) ||
        !where_keeps(spec, ctx, d_case->predicted_bytes)) {
      ++outside;
      continue;
    }
    if (spec.pairs == "both_ran") {
      const ModelCaseRecord* absent = did_not_run(n_case->status)   ? n_case
                                      : did_not_run(d_case->status) ? d_case
                                                                    : nullptr;
      if (absent) {
        if (did_not++ == 0) {
          first_did_not = fmt::format("{} is {}", absent->id, to_string(absent->status));
          if (!absent->reason.empty()) first_did_not += " (" + absent->reason + ")";
        }
        continue;
      }
    }
    ++pairs;
    t.add_ratio(model_metric_of(*n_case, spec.metric), model_metric_of(*d_case, spec.metric), spec,
                d_case->id, n_case->shape_key);
  }
  const std::size_t need = spec.pairs == "both_ran" ? static_cast<std::size_t>(spec.min_pairs) : 1;
  if (t.problems == 0 && any_numerator && pairs < need &&
      (outside + did_not > 0 || spec.pairs == "both_ran")) {
    std::string why = fmt::format("{} of {} selected pairs left to judge (at least {} needed)",
                                  pairs, pairs + outside + did_not, need);
    if (outside > 0) {
      why += fmt::format("; {} with a case outside \"where\": \"{}\" ({})", plural(outside, "pair"),
                         spec.where, where_text(spec, ctx));
    }
    if (did_not > 0) {
      why += fmt::format("; {} where a case did not run: {}{}", plural(did_not, "pair"),
                         first_did_not, and_more(did_not - 1));
    }
    return skipped_verdict(v, why);
  }
  Verdict out = ratio_verdict(v, spec, t, pairs);
  if (did_not > 0 && (out.verdict == VerdictKind::pass || out.verdict == VerdictKind::fail)) {
    out.detail += fmt::format("; {} left out (did not run): {}{}", plural(did_not, "pair"),
                              first_did_not, and_more(did_not - 1));
  }
  return out;
}

}  // namespace

std::vector<Verdict> evaluate_model_checks(const std::vector<CheckSpec>& checks,
                                           const std::vector<ModelCaseRecord>& cases,
                                           const nlohmann::json& device) {
  const CheckContext ctx = check_context(device);
  std::vector<Verdict> out;
  for (const CheckSpec& spec : checks) {
    if (auto off = scope_skip(spec, ctx)) {
      out.push_back(*off);
    } else if (spec.kind == "status") {
      out.push_back(model_status(spec, cases, ctx));
    } else if (spec.kind == "threshold") {
      out.push_back(model_threshold(spec, cases, ctx));
    } else if (spec.kind == "ratio") {
      out.push_back(model_ratio(spec, cases, ctx));
    } else {
      out.push_back(error_verdict(
          start_verdict(spec, ""),
          fmt::format("\"{}\" checks do not apply to transformer results", spec.kind)));
    }
  }
  return out;
}

}  // namespace fa2b
