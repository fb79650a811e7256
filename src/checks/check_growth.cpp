// SPDX-License-Identifier: Apache-2.0
// `growth`: metric at axis == to over metric at axis == from, every other parameter equal.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "checks/check_common.h"
#include "core/axis_table.h"

namespace fa2b::checks {
namespace {

// The case's position on `axis` (a count axis of core/axis_table.h); nullopt when it has none
// (T on a case with T_q != T_k).
std::optional<std::int64_t> axis_value(const Case& c, const std::string& axis) {
  const AxisDef* a = find_axis(axis);
  if (!a || a->kind != AxisKind::count) return std::nullopt;
  const auto v = a->value(c);
  return v.is_number_integer() ? std::optional<std::int64_t>(v.get<std::int64_t>()) : std::nullopt;
}

bool known_axis(const std::string& axis) {
  const AxisDef* a = find_axis(axis);
  return a && a->kind == AxisKind::count;
}

// Everything but the axis: the identity of a growth group (same sweep, role and backend, and
// equal on every other axis of the table).
bool same_group(const Case& a, const Case& b, const std::string& axis) {
  return a.sweep == b.sweep && a.role == b.role && a.backend == b.backend &&
         same_on_axes(a, b, axis);
}

struct Group {
  const CaseResult* from = nullptr;
  const CaseResult* to = nullptr;
  const CaseResult* any = nullptr;
};

}  // namespace

Verdict evaluate_growth(const CheckSpec& spec, const std::vector<CaseResult>& results,
                        const CheckContext& ctx) {
  Verdict v = start_verdict(spec, threshold_text(spec.op, spec.value));
  if (!known_op(spec.op)) return error_verdict(v, fmt::format("unknown op \"{}\"", spec.op));
  if (!known_axis(spec.axis))
    return error_verdict(v, fmt::format("unknown growth axis \"{}\"", spec.axis));
  const auto selected = select(spec, results);
  if (selected.empty()) return error_verdict(v, no_match_detail(spec.select));
  if (const std::string why = where_unjudgeable(spec, ctx); !why.empty())
    return error_verdict(v, why);

  const auto from = static_cast<std::int64_t>(spec.from);
  const auto to = static_cast<std::int64_t>(spec.to);
  // Groups in the order they first appear.
  std::vector<Group> groups;
  for (const CaseResult* r : selected) {
    const auto a = axis_value(r->c, spec.axis);
    if (!a || (*a != from && *a != to)) continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return same_group(g.any->c, r->c, spec.axis); });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{});
    Group& g = *it;
    if (!g.any) g.any = r;
    if (*a == from && !g.from) g.from = r;
    if (*a == to && !g.to) g.to = r;
  }
  if (groups.empty()) {
    return error_verdict(v, fmt::format("no selected case has {} = {} or {} = {} in {}", spec.axis,
                                        from, spec.axis, to, describe_selector(spec.select)));
  }

  std::string first_problem;
  std::size_t problems = 0, failing = 0, outside = 0;
  const CaseResult* worst_case = nullptr;
  double worst_value = kNaN;
  for (const Group& g : groups) {
    auto problem = [&](std::string why) {
      if (problems++ == 0) first_problem = std::move(why);
    };
    // `where`: a group counts when each of its cases present is kept.
    const bool kept = (!g.from || where_keeps(spec, ctx, g.from->memory.predicted_bytes)) &&
                      (!g.to || where_keeps(spec, ctx, g.to->memory.predicted_bytes));
    if (!kept) {
      ++outside;
      continue;
    }
    if (!g.from || !g.to) {
      problem(fmt::format("{} has no partner at {} = {}", g.any->c.id(), spec.axis,
                          g.from ? to : from));
      continue;
    }
    const MetricOrWhy a = metric_of(*g.from, spec.metric);
    const MetricOrWhy b = metric_of(*g.to, spec.metric);
    if (!a.value || !b.value) {
      problem(!a.value ? a.why : b.why);
      continue;
    }
    if (*a.value == 0) {
      problem(fmt::format("{} of {} is 0", spec.metric, g.from->c.id()));
      continue;
    }
    const double growth = *b.value / *a.value;
    if (!compare(growth, spec.op, spec.value)) ++failing;
    if (!worst_case || worse(growth, worst_value, spec.op, spec.value)) {
      worst_case = g.to;
      worst_value = growth;
    }
  }
  if (problems > 0) {
    return error_verdict(v, fmt::format("{}{}; {} of {} groups have no growth", first_problem,
                                        and_more(problems - 1), problems, groups.size()));
  }
  if (!worst_case) {
    return skipped_verdict(
        v, fmt::format("none of the {} selected groups {}", outside, where_text(spec, ctx)));
  }
  v.measured = worst_value;
  const bool pass = failing == 0;
  v.verdict = pass ? VerdictKind::pass : VerdictKind::fail;
  v.detail = fmt::format("worst {} growth {}={} / {}={} = {} at {}", spec.metric, spec.axis, to,
                         spec.axis, from, num(worst_value), worst_case->c.id());
  v.detail += pass ? " (" + plural(groups.size() - outside, "group") + ")"
                   : fmt::format(" ({} of {} groups outside {})", failing, groups.size() - outside,
                                 v.threshold);
  return v;
}

}  // namespace fa2b::checks
