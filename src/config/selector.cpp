// SPDX-License-Identifier: Apache-2.0
// Selectors: which cases a check or a where/exclude filter applies to.
#include <algorithm>

#include "config/config_internal.h"
#include "core/backend_catalog.h"

namespace fa2b {

using config_detail::json;

bool Selector::matches(const Case& c) const {
  for (const auto& [axis, entries] : match) {
    const std::string& name = axis;  // clang < 16 cannot capture a structured binding
    const bool any = std::any_of(entries.begin(), entries.end(), [&](const json& e) {
      return config_detail::selector_entry_matches(name, e, c);
    });
    if (!any) return false;
  }
  return true;
}

bool Selector::matches_model(const std::string& backend, const std::string& role,
                             const std::string& sweep, const nlohmann::json& params) const {
  for (const auto& [axis, entries] : match) {
    json value;
    if (axis == "backend") {
      const bool any = std::any_of(entries.begin(), entries.end(), [&](const json& e) {
        return e == json(role) || e == json(backend);
      });
      if (!any) return false;
      continue;
    }
    if (axis == "sweep") {
      value = sweep;
    } else {
      const std::string key = axis == "H" ? "heads" : (axis == "T_q" || axis == "T_k") ? "T" : axis;
      if (!params.is_object() || !params.contains(key)) return false;
      value = params[key];
    }
    const bool any = std::any_of(entries.begin(), entries.end(), [&](const json& e) {
      if (!e.is_object()) return e == value;
      if (!value.is_number()) return false;
      const double x = value.get<double>();
      return !(e.contains("min") && x < e["min"].get<double>()) &&
             !(e.contains("max") && x > e["max"].get<double>());
    });
    if (!any) return false;
  }
  return true;
}

namespace config_detail {

bool selector_entry_matches(std::string_view axis, const json& entry, const Case& c) {
  if (axis == "backend") return entry == json(c.role) || entry == json(c.backend);
  const json value = case_axis_value(c, axis);
  if (value.is_null()) return false;  // e.g. T on a case with T_q != T_k
  if (entry.is_object()) {            // {"min": a, "max": b}, both inclusive
    if (!value.is_number()) return false;
    const double x = value.get<double>();
    if (entry.contains("min") && x < entry["min"].get<double>()) return false;
    if (entry.contains("max") && x > entry["max"].get<double>()) return false;
    return true;
  }
  return entry == value;
}

std::string show_entry(const json& entry) {
  if (entry.is_string()) return entry.get<std::string>();
  if (entry.is_object()) {
    std::string lo = entry.contains("min") ? entry["min"].dump() : "";
    std::string hi = entry.contains("max") ? entry["max"].dump() : "";
    return "[" + (lo.empty() ? std::string("-inf") : lo) + ", " +
           (hi.empty() ? std::string("inf") : hi) + "]";
  }
  return entry.dump();
}

namespace {

std::optional<json> check_selector_scalar(const std::string& axis, const json& v,
                                          const std::string& pointer, Errors& errors) {
  if (axis == "backend") {
    if (!v.is_string()) {
      errors.add(pointer, "expected a backend name, got " + show(v));
      return std::nullopt;
    }
    const auto& known = known_backend_names();
    const auto name = v.get<std::string>();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string msg = "unknown backend \"" + name + "\"";
      const std::string near = did_you_mean(name, known);
      if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
      errors.add(pointer, msg + "; known backends: " + join(known));
      return std::nullopt;
    }
    return v;
  }
  if (axis == "sweep") {
    const auto s = get_string(v, pointer, errors);
    if (!s) return std::nullopt;
    return v;
  }
  // A variable-length batch is selected by its id tag: "uniform512-8192s1", "list-1a2b3c4d".
  if (axis == "lengths") {
    if (!v.is_string()) {
      errors.add(pointer,
                 "expected the lengths' tag of a case id (\"uniform512-8192s1\", "
                 "\"list-1a2b3c4d\"), got " +
                     show(v));
      return std::nullopt;
    }
    return v;
  }
  return check_axis_scalar(axis, v, pointer, errors);
}

std::optional<json> check_min_max(const std::string& axis, const json& v,
                                  const std::string& pointer, Errors& errors) {
  if (!is_int_axis(axis)) {
    errors.add(pointer, "{\"min\", \"max\"} bounds only apply to integer axes (" + int_axis_list() +
                            "), not \"" + axis + "\"");
    return std::nullopt;
  }
  const std::size_t before = errors.size();
  check_keys(v, pointer, {"min", "max"}, "bound", errors);
  json out = json::object();
  for (const char* k : {"min", "max"}) {
    if (!v.contains(k)) continue;
    const auto n = get_number(v[k], ptr(pointer, k), errors);
    if (n) out[k] = v[k];
  }
  if (!v.contains("min") && !v.contains("max")) {
    errors.add(pointer, "give \"min\", \"max\" or both (inclusive bounds)");
  }
  if (errors.size() != before) return std::nullopt;
  if (out.contains("min") && out.contains("max") &&
      out["min"].get<double>() > out["max"].get<double>()) {
    errors.add(pointer, "min " + out["min"].dump() + " is greater than max " + out["max"].dump());
    return std::nullopt;
  }
  return out;
}

}  // namespace

Selector parse_selector(const json& v, const std::string& pointer, Errors& errors) {
  Selector sel;
  if (!v.is_object()) {
    errors.add(pointer,
               "expected a selector object (axis -> value, list of values or "
               "{\"min\", \"max\"}), got " +
                   show(v));
    return sel;
  }
  check_keys(v, pointer, selector_axis_names(), "selector axis", errors);
  for (const auto& item : v.items()) {
    const std::string& axis = item.key();
    const auto& axes = selector_axis_names();
    if (std::find(axes.begin(), axes.end(), axis) == axes.end()) continue;
    const std::string p = ptr(pointer, axis);
    const json& val = item.value();
    std::vector<json> entries;
    // Lengths are selected by tag, so any list is a list of tags.
    if (axis == "lengths" ? val.is_array() : is_value_list(axis, val)) {
      if (val.empty()) {
        errors.add(p, "empty list; give at least one value");
        continue;
      }
      for (std::size_t i = 0; i < val.size(); ++i) {
        const std::string ep = ptr(p, i);
        auto e = val[i].is_object() ? check_min_max(axis, val[i], ep, errors)
                                    : check_selector_scalar(axis, val[i], ep, errors);
        if (e) entries.push_back(*e);
      }
      if (entries.size() != val.size()) continue;
    } else {
      auto e = val.is_object() ? check_min_max(axis, val, p, errors)
                               : check_selector_scalar(axis, val, p, errors);
      if (!e) continue;
      entries.push_back(*e);
    }
    sel.match[axis] = std::move(entries);
  }
  return sel;
}

}  // namespace config_detail
}  // namespace fa2b
