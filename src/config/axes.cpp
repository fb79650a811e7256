// SPDX-License-Identifier: Apache-2.0
// Grid axes: their names, the values each accepts, and range expansion.
#include <algorithm>

#include "config/config_internal.h"
#include "core/axis_table.h"
#include "core/seq_lengths.h"

namespace fa2b::config_detail {
namespace {
constexpr std::int64_t kMaxVariant = 1 << 16;
}  // namespace

const std::vector<std::string>& grid_axis_names() {
  // The axis table's order (core/axis_table.h): new axes go last, so that the order of every
  // config written before them stays as it was.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const AxisDef& a : axis_table()) n.emplace_back(a.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& selector_axis_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"backend", "sweep"};
    for (const auto& a : grid_axis_names()) n.push_back(a);
    return n;
  }();
  return names;
}

bool is_int_axis(std::string_view axis) {
  const AxisDef* a = find_axis(axis);
  return a && a->kind == AxisKind::count;
}

const std::vector<std::string>& int_axis_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const AxisDef& a : axis_table())
      if (a.kind == AxisKind::count) n.emplace_back(a.name);
    return n;
  }();
  return names;
}

std::string int_axis_list() {
  return join(int_axis_names(), ", ");
}

json case_axis_value(const Case& c, std::string_view axis) {
  if (axis == "backend") return c.backend;
  if (axis == "sweep") return c.sweep;
  const AxisDef* a = find_axis(axis);
  return a ? a->value(c) : json();
}

namespace {

std::optional<json> check_name(const json& v, const std::vector<std::string>& allowed,
                               std::string_view what, const std::string& pointer, Errors& errors) {
  if (!v.is_string()) {
    errors.add(pointer, "expected a " + std::string(what) + " name (" + join(allowed, " | ") +
                            "), got " + show(v));
    return std::nullopt;
  }
  const auto s = v.get<std::string>();
  if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return v;
  std::string msg = "unknown " + std::string(what) + " \"" + s + "\"";
  const std::string near = did_you_mean(s, allowed);
  if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
  errors.add(pointer, msg + "; allowed: " + join(allowed));
  return std::nullopt;
}

// One window: [left, right], each a width >= 0 or -1 (unbounded on that side).
std::optional<json> check_window(const json& v, const std::string& pointer, Errors& errors) {
  if (!v.is_array() || v.size() != 2) {
    errors.add(pointer,
               "expected a window [left, right] of two integers, each a width >= 0 or -1 "
               "(unbounded on that side), got " +
                   show(v));
    return std::nullopt;
  }
  json out = json::array();
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string side = i == 0 ? "left" : "right";
    const json& w = v[i];
    if (!w.is_number_integer() ||
        (w.is_number_unsigned() &&
         w.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))) {
      errors.add(ptr(pointer, i), "expected the window's " + side +
                                      " width as an integer (>= 0, or -1 for unbounded), got " +
                                      show(w));
      continue;
    }
    const std::int64_t width = w.get<std::int64_t>();
    if (width < -1) {
      errors.add(ptr(pointer, i), "window " + side + " width " + std::to_string(width) +
                                      " is negative; give a width >= 0, or -1 for unbounded");
      continue;
    }
    out.push_back(width);
  }
  if (out.size() != 2) return std::nullopt;
  return out;
}

// One page size: a power of two from kMinPageSize to kMaxPageSize tokens.
std::optional<json> check_page_size(const json& v, const std::string& pointer, Errors& errors) {
  const std::string allowed = "a power of two from " + std::to_string(kMinPageSize) + " to " +
                              std::to_string(kMaxPageSize) + " (tokens per page)";
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX)) {
    errors.add(pointer, "expected page_size as " + allowed + ", got " + show(v));
    return std::nullopt;
  }
  const std::int64_t n = v.get<std::int64_t>();
  if (n < kMinPageSize || n > kMaxPageSize) {
    errors.add(pointer, "page_size " + std::to_string(n) + " is out of range; give " + allowed);
    return std::nullopt;
  }
  if ((n & (n - 1)) != 0) {
    errors.add(pointer,
               "page_size " + std::to_string(n) + " is not a power of two; give " + allowed);
    return std::nullopt;
  }
  return json(n);
}

}  // namespace

bool is_value_list(std::string_view axis, const json& v) {
  if (!v.is_array()) return false;
  // A window is itself a list: [16, 16] is one window, [[16, 16], [0, 0]] two; one batch's
  // lengths too: [17, 1, 4097] is one batch, [[17, 1], {"dist": ...}] two.
  const AxisDef* def = find_axis(axis);
  const AxisKind kind = def ? def->kind : AxisKind::count;
  if (kind == AxisKind::lengths) return v.empty() || v[0].is_array() || v[0].is_object();
  return kind != AxisKind::window || v.empty() || v[0].is_array();
}

std::optional<json> check_axis_scalar(std::string_view axis, const json& v,
                                      const std::string& pointer, Errors& errors) {
  const AxisDef* def = find_axis(axis);
  if (!def) {
    errors.add(pointer, "unknown axis \"" + std::string(axis) + "\"");
    return std::nullopt;
  }
  switch (def->kind) {
    case AxisKind::count: {
      const auto i = get_positive_int(v, pointer, errors);
      if (!i) return std::nullopt;
      return json(*i);
    }
    case AxisKind::name:
      return check_name(v, def->names, axis, pointer, errors);
    case AxisKind::flag: {
      const auto b = get_bool(v, pointer, errors);
      if (!b) return std::nullopt;
      return json(*b);
    }
    case AxisKind::index: {
      // variant: 0 is the shipped kernel; a dev-variant backend's own count bounds it
      // (expand.cpp).
      const auto i = get_int_at_least(v, 0, pointer, errors);
      if (!i) return std::nullopt;
      if (*i > kMaxVariant) {
        errors.add(pointer, "variant " + std::to_string(*i) +
                                " is beyond any backend's variants (at most " +
                                std::to_string(kMaxVariant) + ")");
        return std::nullopt;
      }
      return json(*i);
    }
    case AxisKind::window:
      return check_window(v, pointer, errors);
    case AxisKind::lengths:
      return check_lengths(v, pointer, errors);
    case AxisKind::page:
      return check_page_size(v, pointer, errors);
  }
  errors.add(pointer, "unknown axis \"" + std::string(axis) + "\"");
  return std::nullopt;
}

namespace {

std::optional<std::vector<json>> expand_range(std::string_view axis, const json& v,
                                              const std::string& pointer, Errors& errors) {
  const std::size_t before = errors.size();
  if (!is_int_axis(axis)) {
    errors.add(pointer, "a range object is only allowed on integer axes (" + int_axis_list() +
                            "); give a value or a list for \"" + std::string(axis) + "\"");
    return std::nullopt;
  }
  check_keys(v, pointer, {"range", "mul", "add"}, "range key", errors);
  std::optional<std::int64_t> start, end;
  if (!v.contains("range")) {
    errors.add(pointer,
               "a range object needs \"range\": [start, end] (inclusive) and one of "
               "\"mul\" or \"add\"");
  } else {
    const json& r = v["range"];
    const std::string rp = ptr(pointer, "range");
    if (!r.is_array() || r.size() != 2) {
      errors.add(rp, "expected [start, end] (two positive integers, inclusive), got " + show(r));
    } else {
      start = get_positive_int(r[0], ptr(rp, 0), errors);
      end = get_positive_int(r[1], ptr(rp, 1), errors);
      if (start && end && *end < *start) {
        errors.add(rp, "empty range: end " + std::to_string(*end) + " is less than start " +
                           std::to_string(*start));
      }
    }
  }
  const bool has_mul = v.contains("mul"), has_add = v.contains("add");
  std::optional<std::int64_t> step;
  if (has_mul == has_add) {
    errors.add(pointer, has_mul ? "give only one of \"mul\" and \"add\""
                                : "a range object needs a step: \"mul\": N (N > 1) or \"add\": "
                                  "N (N >= 1)");
  } else if (has_mul) {
    const json& m = v["mul"];
    if (!m.is_number_integer() || m.get<std::int64_t>() <= 1 ||
        (m.is_number_unsigned() && m.get<std::uint64_t>() > INT64_MAX)) {
      errors.add(ptr(pointer, "mul"),
                 "expected an integer > 1 (a range would never grow otherwise), got " + show(m));
    } else {
      step = m.get<std::int64_t>();
    }
  } else {
    step = get_positive_int(v["add"], ptr(pointer, "add"), errors);
  }
  if (errors.size() != before || !start || !end || !step) return std::nullopt;

  std::vector<json> out;
  std::int64_t x = *start;
  while (true) {
    out.push_back(x);
    if (static_cast<std::int64_t>(out.size()) > kMaxCases) {
      errors.add(pointer, "range has more than " + std::to_string(kMaxCases) + " values");
      return std::nullopt;
    }
    if (has_mul) {
      if (x > *end / *step) break;  // next value would pass the end (or overflow)
      x *= *step;
    } else {
      if (x > *end - *step) break;
      x += *step;
    }
    if (x > *end) break;
  }
  return out;
}

}  // namespace

std::optional<std::vector<json>> expand_axis_values(std::string_view axis, const json& v,
                                                    const std::string& pointer, Errors& errors) {
  // A lengths object is one distribution, not a range of values.
  if (v.is_object() && axis != "lengths") return expand_range(axis, v, pointer, errors);
  if (!is_value_list(axis, v)) {
    const auto s = check_axis_scalar(axis, v, pointer, errors);
    if (!s) return std::nullopt;
    return std::vector<json>{*s};
  }
  if (v.empty()) {
    errors.add(pointer, "empty list; give at least one value");
    return std::nullopt;
  }
  const std::size_t before = errors.size();
  std::vector<json> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto s = check_axis_scalar(axis, v[i], ptr(pointer, i), errors);
    if (!s) continue;
    if (std::find(out.begin(), out.end(), *s) != out.end()) {
      errors.add(ptr(pointer, i), "duplicate value " + show(*s) + " (each value once)");
      continue;
    }
    out.push_back(*s);
  }
  if (errors.size() != before) return std::nullopt;
  return out;
}

}  // namespace fa2b::config_detail
