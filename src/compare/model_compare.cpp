// SPDX-License-Identifier: Apache-2.0
// Matching the cases of two transformer results files, ratios, verdicts and geometric means.
#include "compare/model_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "checks/config_echo.h"
#include "checks/result_gate.h"

namespace fa2b {
namespace {

double ratio(double num, double den) {
  return std::isfinite(num) && std::isfinite(den) && num > 0 && den > 0 ? num / den : kNaN;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Verdict of one matched pair: statuses first, then the step time against the threshold.
void judge(ModelCaseComparison& cc, double threshold) {
  const ModelCaseRecord& b = cc.base;
  const ModelCaseRecord& n = cc.next;
  if (b.status != Status::ok || n.status != Status::ok) {
    cc.kind = ChangeKind::status;
    cc.verdict = fmt::format("{}→{}", to_string(b.status), to_string(n.status));
    cc.regression = b.status == Status::ok;
    return;
  }
  // The loader guarantees finite positive numbers on ok cases.
  cc.peak_ratio = ratio(static_cast<double>(n.peak_bytes), static_cast<double>(b.peak_bytes));
  cc.step_ratio = ratio(n.step_ms, b.step_ms);
  cc.tokens_ratio = ratio(n.tokens_per_s, b.tokens_per_s);
  const double rel = cc.step_ratio - 1;
  cc.kind = std::fabs(rel) <= threshold ? ChangeKind::same
            : rel < 0                   ? ChangeKind::faster
                                        : ChangeKind::slower;
  cc.regression = cc.kind == ChangeKind::slower;
  cc.verdict = std::string(to_string(cc.kind));
}

// The cases matched with each other: all by id, or one pair's backends by shape key.
struct Group {
  std::vector<const ModelCaseRecord*> base, next;
  const BackendPair* pair = nullptr;
};

std::vector<const ModelCaseRecord*> of_backend(const ModelResultSet& rs, const std::string* b) {
  std::vector<const ModelCaseRecord*> out;
  for (const ModelCaseRecord& r : rs.cases)
    if (!b || r.backend == *b) out.push_back(&r);
  return out;
}

// Sweep + key: two sweeps of one config may hold the same shape; the first of a repeat is used.
std::string key_of(const ModelCaseRecord& r, bool by_shape) {
  return by_shape ? r.shape_key : r.id;
}

std::vector<std::string> failures_of(const ModelResultSet& next, const ModelResultSet& base,
                                     const ModelComparison& c) {
  std::vector<std::string> out;
  if (next.cases.empty()) out.push_back(fmt::format("NEW {} has no cases", next.file));
  if (next.interrupted)
    out.push_back(fmt::format("NEW {}: interrupted before its last case", next.file));
  // Errors count in the backends compared only: a peer file may hold backends nobody asked
  // about (e.g. torch-math when comparing fa2=torch-flash).
  std::set<std::string> regressed;
  for (const ModelCaseComparison& cc : c.cases)
    if (cc.regression) regressed.insert(cc.next.id);
  for (const ModelCaseRecord& r : next.cases) {
    const bool compared =
        !c.by_pair() || std::any_of(c.options.pairs.begin(), c.options.pairs.end(),
                                    [&](const BackendPair& p) { return p.next == r.backend; });
    if (!compared || regressed.count(r.id)) continue;
    if (r.status == Status::error || r.status == Status::timeout) {
      out.push_back(fmt::format("NEW {} is {}{}", r.id, to_string(r.status),
                                r.reason.empty() ? "" : ": " + r.reason));
    }
  }
  // NEW's verified config echo: the gate's rule over its steps (missing steps, steps outside
  // the config's expansion, repeats), as for attention results.
  if (!next.config_echo.is_null() && !(next.config_echo.is_object() && next.config_echo.empty())) {
    std::string why;
    const std::optional<Config> config = config_from_echo(recorded_echo(next, next.file), &why);
    if (!config) throw CompareError("NEW " + why);
    const GateOptions gate{config->allow_case_errors, c.options.allow_missing};
    for (const GateProblem& p : audit_result_set(next, &*config, gate)) {
      if (p.kind == GateProblemKind::incomplete || p.kind == GateProblemKind::unexpected)
        out.push_back(fmt::format("NEW {}: {}", next.file, p.reason));
    }
  }
  std::size_t compared = 0;
  for (const ModelCaseComparison& cc : c.cases)
    if (cc.base.status == Status::ok && std::isfinite(cc.base.step_ms) && cc.base.step_ms > 0)
      ++compared;
  for (std::string& f : base_run_failures(base.file, base.cases.size(), base.interrupted, compared))
    out.push_back(std::move(f));
  if (c.options.allow_missing) return out;
  if (!c.only_base.empty()) {
    out.push_back(fmt::format(
        "{} only in BASE (missing in NEW): {}{}", c.only_base.size(), c.only_base.front(),
        c.only_base.size() > 1 ? fmt::format(" (and {} more)", c.only_base.size() - 1) : ""));
  }
  if (!c.by_pair()) {
    const std::vector<std::string> have = model_backends(next);
    for (const std::string& b : model_backends(base))
      if (!contains(have, b)) out.push_back(fmt::format("backend {} is missing in NEW", b));
  }
  return out;
}

}  // namespace

std::vector<std::string> model_backends(const ModelResultSet& rs) {
  std::vector<std::string> out;
  for (const ModelCaseRecord& r : rs.cases)
    if (!contains(out, r.backend)) out.push_back(r.backend);
  return out;
}

ModelComparison compare_model_results(const ModelResultSet& base, const ModelResultSet& next,
                                      const CompareOptions& options) {
  ModelComparison c;
  c.options = options;
  c.base_file = base.file;
  c.new_file = next.file;
  c.base_device = base.device;
  c.new_device = next.device;
  if (base.interrupted) c.warnings.push_back("warning: " + base.file + " is an interrupted run");
  if (next.interrupted) c.warnings.push_back("warning: " + next.file + " is an interrupted run");

  std::vector<Group> groups;
  if (options.pairs.empty()) {
    groups.push_back({of_backend(base, nullptr), of_backend(next, nullptr), nullptr});
  } else {
    for (const BackendPair& p : c.options.pairs)
      groups.push_back({of_backend(base, &p.base), of_backend(next, &p.next), &p});
  }
  for (const Group& g : groups) {
    const bool by_shape = g.pair != nullptr;
    std::map<std::string, const ModelCaseRecord*> new_by_key;
    for (const ModelCaseRecord* r : g.next) {
      if (!new_by_key.emplace(key_of(*r, by_shape), r).second)
        c.warnings.push_back(
            fmt::format("{}: duplicate case {} (the first is compared)", next.file, r->id));
    }
    std::set<std::string> seen, used;
    for (const ModelCaseRecord* b : g.base) {
      const std::string key = key_of(*b, by_shape);
      if (!seen.insert(key).second) {
        c.warnings.push_back(
            fmt::format("{}: duplicate case {} (the first is compared)", base.file, b->id));
        continue;
      }
      const auto it = new_by_key.find(key);
      if (it == new_by_key.end()) {
        c.only_base.push_back(b->id);
        continue;
      }
      used.insert(key);
      ModelCaseComparison cc;
      cc.id = g.pair ? g.pair->key() + "/" + b->shape_key : b->id;
      cc.shape_key = b->shape_key;
      cc.base = *b;
      cc.next = *it->second;
      judge(cc, options.threshold);
      count_verdict(cc.kind, cc.base.status, cc.next.status, cc.regression, c.counts);
      c.cases.push_back(std::move(cc));
    }
    for (const ModelCaseRecord* r : g.next)  // file order; a repeat was warned about above
      if (!used.count(key_of(*r, by_shape)) && new_by_key[key_of(*r, by_shape)] == r)
        c.only_new.push_back(r->id);
  }

  // Geomean rows per (BASE backend, NEW backend), in order of first appearance.
  std::vector<std::pair<std::string, std::string>> order;
  for (const ModelCaseComparison& cc : c.cases) {
    const std::pair<std::string, std::string> k{cc.base.backend, cc.next.backend};
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  }
  for (const auto& [b, n] : order) {
    std::vector<double> peak, step, tokens;
    for (const ModelCaseComparison& cc : c.cases) {
      if (cc.base.backend != b || cc.next.backend != n || !std::isfinite(cc.step_ratio)) continue;
      peak.push_back(cc.peak_ratio);
      step.push_back(cc.step_ratio);
      tokens.push_back(cc.tokens_ratio);
    }
    c.geomean.push_back({b, n, static_cast<int>(step.size()), geometric_mean(peak),
                         geometric_mean(step), geometric_mean(tokens)});
  }
  c.failures = failures_of(next, base, c);
  return c;
}

}  // namespace fa2b
