// SPDX-License-Identifier: Apache-2.0
// The "checks" list: each check's fields by kind, and whether the cases it names exist.
#include <algorithm>
#include <regex>
#include <set>

#include "config/config_internal.h"
#include "core/backend_catalog.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/shape_algebra.h"
#include "io/model_results.h"
#include "io/results_json.h"

namespace fa2b::config_detail {
namespace {

const std::vector<std::string>& check_kinds() {
  static const std::vector<std::string> kinds = {"threshold", "ratio", "growth",
                                                 "status",    "plan",  "accuracy_rule"};
  return kinds;
}

std::vector<std::string> allowed_check_keys(const std::string& kind) {
  std::vector<std::string> keys = {"name", "kind", "description", "select"};
  if (kind != "plan") {
    keys.push_back("where");
    keys.push_back("target");
    keys.push_back("min_cc");
  }
  if (kind == "ratio" || kind == "accuracy_rule") {
    keys.push_back("pairs");
    keys.push_back("min_pairs");
  }
  auto add = [&](std::initializer_list<const char*> more) {
    for (const char* k : more) keys.push_back(k);
  };
  if (kind == "threshold") add({"metric", "op", "value"});
  if (kind == "ratio") add({"metric", "op", "value", "numerator", "denominator"});
  if (kind == "growth") add({"metric", "op", "value", "axis", "from", "to"});
  if (kind == "status") add({"expect"});
  if (kind == "plan") add({"metric", "op", "value", "divide_by"});
  if (kind == "accuracy_rule") add({"metric", "baseline", "factor", "atol"});
  return keys;
}

bool kind_has_op(const std::string& kind) {
  return kind == "threshold" || kind == "ratio" || kind == "growth" || kind == "plan";
}

std::optional<std::string> get_name_in(const json& v, const std::vector<std::string>& allowed,
                                       const std::string& what, const std::string& pointer,
                                       Errors& errors) {
  if (!v.is_string()) {
    errors.add(pointer,
               "expected " + what + " name, got " + show(v) + "; allowed: " + join(allowed));
    return std::nullopt;
  }
  const auto s = v.get<std::string>();
  if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return s;
  std::string msg = "unknown " + what + " \"" + s + "\"";
  const std::string near = did_you_mean(s, allowed);
  if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
  errors.add(pointer,
             msg + (what == "backend" ? "; known backends: " : "; allowed: ") + join(allowed));
  return std::nullopt;
}

std::vector<std::string> backends_of(const std::vector<Case>& cases) {
  std::vector<std::string> out;
  for (const auto& c : cases) {
    if (std::find(out.begin(), out.end(), c.role) == out.end()) out.push_back(c.role);
  }
  return out;
}

Selector without(const Selector& s, const std::string& axis) {
  Selector out = s;
  out.match.erase(axis);
  return out;
}

std::vector<const Case*> select_cases(const std::vector<Case>& cases, const Selector& s) {
  std::vector<const Case*> out;
  for (const auto& c : cases) {
    if (s.matches(c)) out.push_back(&c);
  }
  return out;
}

bool has_backend(const std::vector<const Case*>& cases, const std::string& b) {
  return std::any_of(cases.begin(), cases.end(),
                     [&](const Case* c) { return c->role == b || c->backend == b; });
}

// Reports a backend a check needs that the selected cases lack.
void require_backend(const std::string& b, const std::vector<const Case*>& selected,
                     const std::vector<Case>& cases, const std::string& pointer, Errors& refs) {
  if (has_backend(selected, b)) return;
  std::vector<const Case*> all;
  for (const auto& c : cases) all.push_back(&c);
  if (has_backend(all, b)) {
    refs.add(pointer, "no case matching the check's select has backend \"" + b + "\"");
  } else {
    refs.add(pointer, "no case has backend \"" + b +
                          "\" (backends in this config: " + join(backends_of(cases)) + ")");
  }
}

// Every value a selector names must exist on some case, and the selector as a whole must
// match at least one case.
void check_selector_refs(const Selector& sel, const json& raw_select, const std::string& sp,
                         const std::vector<Case>& cases, Errors& refs) {
  const std::size_t before = refs.size();
  for (const auto& [axis, entries] : sel.match) {
    const bool listed = raw_select[axis].is_array();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const json& e = entries[i];
      const std::string& name = axis;  // clang < 16 cannot capture a structured binding
      const bool found = std::any_of(cases.begin(), cases.end(), [&](const Case& c) {
        return selector_entry_matches(name, e, c);
      });
      if (found) continue;
      const std::string p = listed ? ptr(ptr(sp, axis), i) : ptr(sp, axis);
      if (axis == "backend") {
        refs.add(p, "no case has backend \"" + show_entry(e) +
                        "\" (backends in this config: " + join(backends_of(cases)) + ")");
      } else if (e.is_object()) {
        refs.add(p, "no case has " + axis + " in " + show_entry(e));
      } else {
        refs.add(p, "no case has " + axis + " = " + show_entry(e));
      }
    }
  }
  if (refs.size() == before && select_cases(cases, sel).empty()) {
    refs.add(sp, "no case matches all of this selector's axes together");
  }
}

}  // namespace

// The references of a check on transformer sweeps: its selection matches a case, and a
// ratio's two backends ran a common shape in it.
void check_model_refs(const CheckSpec& spec, const std::vector<ModelCase>& cases,
                      const std::string& cp, Errors& refs) {
  auto selected = [&](const Selector& sel) {
    std::vector<const ModelCase*> out;
    for (const ModelCase& c : cases)
      if (sel.matches_model(c.backend, c.role, c.sweep, model_params_json(c))) out.push_back(&c);
    return out;
  };
  if (selected(spec.select).empty()) {
    refs.add(ptr(cp, "select"), "no transformer case matches the selection");
    return;
  }
  if (spec.kind != "ratio") return;
  std::set<std::string> num, both;
  const auto others = selected(without(spec.select, "backend"));
  for (const ModelCase* c : others)
    if (c->role == spec.numerator) num.insert(c->shape_key());
  for (const ModelCase* c : others)
    if (c->role == spec.denominator && num.count(c->shape_key())) both.insert(c->shape_key());
  if (both.empty()) {
    refs.add(cp, "no selected transformer shape was run with both \"" + spec.numerator +
                     "\" and \"" + spec.denominator + "\"");
  }
}

std::vector<CheckSpec> parse_checks(const json& raw, const std::vector<Case>& cases,
                                    bool cases_valid, bool drop_unmatched,
                                    std::vector<std::size_t>& dropped,
                                    std::vector<std::string>& notes, Errors& errors,
                                    const std::vector<ModelCase>* model_cases) {
  std::vector<CheckSpec> out;
  if (!raw.contains("checks")) return out;
  const json& checks = raw["checks"];
  if (!checks.is_array()) {
    errors.add("/checks", "expected a list of check objects, got " + show(checks));
    return out;
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const std::string cp = ptr("/checks", i);
    const json& ch = checks[i];
    if (!ch.is_object()) {
      errors.add(cp, "expected a check object, got " + show(ch));
      continue;
    }
    Errors own;   // problems with the check itself
    Errors refs;  // references to cases, backends or values that the sweeps do not produce
    CheckSpec spec;
    spec.pointer = cp;

    if (!ch.contains("name")) {
      own.add(cp, "missing required \"name\" (a unique check name)");
    } else if (auto n = get_string(ch["name"], ptr(cp, "name"), own)) {
      spec.name = *n;
      if (!names.insert(spec.name).second) {
        own.add(ptr(cp, "name"),
                "duplicate check name \"" + spec.name + "\"; names must be unique");
      }
    }
    if (!ch.contains("kind")) {
      own.add(cp, "missing required \"kind\" (one of: " + join(check_kinds()) + ")");
    } else if (auto k =
                   get_name_in(ch["kind"], check_kinds(), "check kind", ptr(cp, "kind"), own)) {
      spec.kind = *k;
    }
    const std::string& kind = spec.kind;
    // Transformer results have statuses, numbers and backends, but no plan metrics of the
    // attention call, no accuracy and no growth axis the checks know.
    if (model_cases && !kind.empty() && kind != "status" && kind != "threshold" &&
        kind != "ratio") {
      own.add(ptr(cp, "kind"), "\"" + kind +
                                   "\" checks do not apply to transformer sweeps (status, "
                                   "threshold and ratio do)");
    }
    if (!kind.empty())
      check_keys(ch, cp, allowed_check_keys(kind), "key for a " + kind + " check", own);
    if (ch.contains("description") && !ch["description"].is_string()) {
      own.add(ptr(cp, "description"), "expected a string, got " + show(ch["description"]));
    }
    if (ch.contains("select")) spec.select = parse_selector(ch["select"], ptr(cp, "select"), own);

    auto require = [&](const char* key) {
      if (ch.contains(key)) return true;
      own.add(cp, std::string("missing required \"") + key + "\" for a " + kind + " check");
      return false;
    };
    if (!kind.empty() && kind != "status") {
      if (require("metric")) {
        const auto& allowed = model_cases      ? model_metric_names()
                              : kind == "plan" ? plan_metric_names()
                                               : measured_metric_names();
        const std::string what = kind == "plan" ? "plan metric" : "metric";
        if (auto m = get_name_in(ch["metric"], allowed, what, ptr(cp, "metric"), own)) {
          spec.metric = *m;
        }
      }
    }
    if (!kind.empty() && kind_has_op(kind)) {
      if (require("op")) {
        if (auto o =
                get_name_in(ch["op"], {"<", "<=", ">", ">=", "=="}, "op", ptr(cp, "op"), own)) {
          spec.op = *o;
        }
      }
      if (require("value")) {
        const json& v = ch["value"];
        if (v.is_number()) {
          spec.value = v.get<double>();
        } else {
          own.add(ptr(cp, "value"), "expected a number, got " + show(v));
        }
      }
    }
    auto backend_field = [&](const char* key, std::string& dest) {
      if (!require(key)) return;
      if (auto b = get_name_in(ch[key], known_backend_names(), "backend", ptr(cp, key), own)) {
        dest = *b;
      }
    };
    if (kind == "ratio") {
      backend_field("numerator", spec.numerator);
      backend_field("denominator", spec.denominator);
      if (!spec.numerator.empty() && spec.numerator == spec.denominator) {
        own.add(ptr(cp, "denominator"),
                "numerator and denominator are the same backend \"" + spec.numerator + "\"");
      }
    }
    if (kind == "accuracy_rule") {
      backend_field("baseline", spec.baseline);
      for (const char* key : {"factor", "atol"}) {
        if (!ch.contains(key)) continue;
        const json& v = ch[key];
        if (!v.is_number() || v.get<double>() < 0) {
          own.add(ptr(cp, key), "expected a number >= 0, got " + show(v));
        } else {
          (std::string(key) == "factor" ? spec.factor : spec.atol) = v.get<double>();
        }
      }
    }
    if (kind == "growth") {
      const std::vector<std::string>& int_axes = int_axis_names();
      if (require("axis")) {
        if (auto a = get_name_in(ch["axis"], int_axes, "growth axis", ptr(cp, "axis"), own)) {
          spec.axis = *a;
        }
      }
      for (const char* key : {"from", "to"}) {
        if (!require(key)) continue;
        if (auto x = get_positive_int(ch[key], ptr(cp, key), own)) {
          (std::string(key) == "from" ? spec.from : spec.to) = static_cast<double>(*x);
        }
      }
      if (ch.contains("from") && ch.contains("to") && ch["from"] == ch["to"]) {
        own.add(ptr(cp, "to"), "\"from\" and \"to\" are the same value");
      }
    }
    if (kind == "status" && require("expect")) {
      if (auto e = get_name_in(ch["expect"], {"ok", "unsupported", "oom", "error", "timeout"},
                               "status", ptr(cp, "expect"), own)) {
        spec.expect = *e;
      }
    }
    if (!kind.empty() && kind != "plan" && ch.contains("where")) {
      if (auto w = get_name_in(ch["where"], {"fits", "exceeds"},
                               "where (device-relative selection)", ptr(cp, "where"), own)) {
        spec.where = *w;
      }
    }
    if (!kind.empty() && kind != "plan" && ch.contains("target")) {
      if (auto t = get_name_in(ch["target"], {"cuda", "cpu"}, "target", ptr(cp, "target"), own)) {
        spec.target = *t;
      }
    }
    if (!kind.empty() && kind != "plan" && ch.contains("min_cc")) {
      const json& v = ch["min_cc"];
      if (v.is_string() && std::regex_match(v.get<std::string>(), std::regex("[0-9]+\\.[0-9]+"))) {
        spec.min_cc = v.get<std::string>();
      } else {
        own.add(ptr(cp, "min_cc"),
                "expected a compute capability as a string, e.g. \"9.0\" (Hopper), got " + show(v));
      }
    }
    if ((kind == "ratio" || kind == "accuracy_rule") && ch.contains("pairs")) {
      if (auto pr = get_name_in(ch["pairs"], {"both_ran"}, "pairs rule", ptr(cp, "pairs"), own)) {
        spec.pairs = *pr;
      }
    }
    if ((kind == "ratio" || kind == "accuracy_rule") && ch.contains("min_pairs")) {
      if (!ch.contains("pairs")) {
        own.add(ptr(cp, "min_pairs"),
                "min_pairs needs \"pairs\": \"both_ran\" (without it every selected pair must "
                "have run)");
      } else if (auto n = get_positive_int(ch["min_pairs"], ptr(cp, "min_pairs"), own)) {
        spec.min_pairs = static_cast<int>(std::min<std::int64_t>(*n, 1 << 30));
      }
    }
    if (kind == "plan" && ch.contains("divide_by")) {
      if (auto d = get_name_in(ch["divide_by"], plan_metric_names(), "plan metric",
                               ptr(cp, "divide_by"), own)) {
        spec.divide_by = *d;
      }
    }

    // References to the expanded cases, only meaningful when the check itself is well formed.
    if (own.empty() && cases_valid && model_cases) check_model_refs(spec, *model_cases, cp, refs);
    if (own.empty() && cases_valid && !model_cases) {
      const std::string sp = ptr(cp, "select");
      check_selector_refs(spec.select, ch.contains("select") ? ch["select"] : json::object(), sp,
                          cases, refs);
      if (refs.empty()) {
        const auto others = select_cases(cases, without(spec.select, "backend"));
        if (kind == "ratio") {
          require_backend(spec.numerator, others, cases, ptr(cp, "numerator"), refs);
          require_backend(spec.denominator, others, cases, ptr(cp, "denominator"), refs);
          if (refs.empty()) {
            std::set<std::string> num, both;
            for (const Case* c : others) {
              if (c->role == spec.numerator) num.insert(c->shape_key());
            }
            for (const Case* c : others) {
              if (c->role == spec.denominator && num.count(c->shape_key())) {
                both.insert(c->shape_key());
              }
            }
            if (both.empty()) {
              refs.add(cp, "no selected shape was run with both \"" + spec.numerator + "\" and \"" +
                               spec.denominator + "\"");
            }
          }
        }
        if (kind == "accuracy_rule") {
          require_backend(spec.baseline, others, cases, ptr(cp, "baseline"), refs);
        }
        if (kind == "growth") {
          const auto along = select_cases(cases, without(spec.select, spec.axis));
          std::vector<std::int64_t> values;
          for (const Case* c : along) {
            const json v = case_axis_value(*c, spec.axis);
            if (v.is_number_integer() &&
                std::find(values.begin(), values.end(), v.get<std::int64_t>()) == values.end()) {
              values.push_back(v.get<std::int64_t>());
            }
          }
          std::sort(values.begin(), values.end());
          std::vector<std::string> shown;
          for (auto v : values) shown.push_back(std::to_string(v));
          for (const char* key : {"from", "to"}) {
            const auto want = ch[key].get<std::int64_t>();
            if (std::find(values.begin(), values.end(), want) == values.end()) {
              refs.add(ptr(cp, key), "no selected case has " + spec.axis + " = " +
                                         std::to_string(want) + " (values on this axis: " +
                                         (shown.empty() ? "none" : join(shown)) + ")");
            }
          }
        }
      }
    }

    errors.append(own);
    if (!refs.empty() && drop_unmatched) {
      dropped.push_back(i);
      notes.push_back("check \"" + spec.name +
                      "\" dropped: the overrides leave no case it applies to (" +
                      refs.messages().front() + ")");
      continue;
    }
    errors.append(refs);
    if (own.empty() && refs.empty()) out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace fa2b::config_detail
