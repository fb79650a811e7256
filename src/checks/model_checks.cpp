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

Verdict model_status(const CheckSpec& spec, const std::vector<ModelCaseRecord>& cases) {
  Verdict v = start_verdict(spec, "status == " + spec.expect);
  const auto expect = parse_status(spec.expect);
  if (!expect) return error_verdict(v, fmt::format("unknown status \"{}\"", spec.expect));
  const auto selected = select_model(spec, cases);
  if (selected.empty()) return error_verdict(v, no_match_detail(spec.select));
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

Verdict model_threshold(const CheckSpec& spec, const std::vector<ModelCaseRecord>& cases) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  const auto selected = select_model(spec, cases);
  if (selected.empty()) return error_verdict(v, no_match_detail(spec.select));
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

Verdict model_ratio(const CheckSpec& spec, const std::vector<ModelCaseRecord>& cases) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  if (spec.numerator.empty() || spec.denominator.empty())
    return error_verdict(v, "ratio check needs a numerator and a denominator backend");
  const auto selected = select_model(spec, cases);
  if (selected.empty()) return error_verdict(v, no_match_detail(spec.select));
  BoundTally t;
  std::size_t pairs = 0;
  for (const ModelCaseRecord* n_case : selected) {
    if (!is_model_backend(*n_case, spec.numerator)) continue;
    ++pairs;
    const ModelCaseRecord* d_case = model_partner(*n_case, spec.denominator, cases);
    if (!d_case) {
      t.problem(fmt::format("no {} case with the shape of {}", spec.denominator, n_case->id));
      continue;
    }
    t.add_ratio(model_metric_of(*n_case, spec.metric), model_metric_of(*d_case, spec.metric), spec,
                d_case->id, n_case->shape_key);
  }
  return ratio_verdict(v, spec, t, pairs);
}

}  // namespace

std::vector<Verdict> evaluate_model_checks(const std::vector<CheckSpec>& checks,
                                           const std::vector<ModelCaseRecord>& cases) {
  std::vector<Verdict> out;
  for (const CheckSpec& spec : checks) {
    if (spec.kind == "status") {
      out.push_back(model_status(spec, cases));
    } else if (spec.kind == "threshold") {
      out.push_back(model_threshold(spec, cases));
    } else if (spec.kind == "ratio") {
      out.push_back(model_ratio(spec, cases));
    } else {
      out.push_back(error_verdict(
          start_verdict(spec, ""),
          fmt::format("\"{}\" checks do not apply to transformer results", spec.kind)));
    }
  }
  return out;
}

}  // namespace fa2b
