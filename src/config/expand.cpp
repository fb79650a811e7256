// SPDX-License-Identifier: Apache-2.0
// Sweeps: validate each one and expand its grid into cases, in a deterministic order.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "config/config_internal.h"
#include "core/attention_mask.h"
#include "core/axis_table.h"
#include "core/backend_catalog.h"
#include "core/shape_algebra.h"

namespace fa2b::config_detail {
namespace {

struct AxisValues {
  std::vector<json> values;
  std::string pointer;  // where the values were given, for messages
};
using AxisMap = std::map<std::string, AxisValues>;

std::size_t axis_index(const std::string& axis) {
  const auto& names = grid_axis_names();
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), axis) - names.begin());
}

bool is_grid_axis(const std::string& axis) {
  return axis_index(axis) < grid_axis_names().size();
}

// Reads an object of axis -> value (a sweep's grid or the top-level defaults).
AxisMap parse_axes(const json& obj, const std::string& pointer, Errors& errors) {
  AxisMap out;
  check_keys(obj, pointer, grid_axis_names(), "axis", errors);
  for (const auto& item : obj.items()) {
    if (!is_grid_axis(item.key())) continue;
    const std::string p = ptr(pointer, item.key());
    auto values = expand_axis_values(item.key(), item.value(), p, errors);
    if (values) out[item.key()] = AxisValues{std::move(*values), p};
  }
  if (obj.contains("T") && (obj.contains("T_q") || obj.contains("T_k"))) {
    errors.add(ptr(pointer, "T"),
               "give either T (sets T_q = T_k) or T_q and T_k, not both in one object");
  }
  return out;
}

// Defaults first, the grid on top. T in the grid replaces T_q/T_k of the defaults; T_q or T_k
// in the grid turn a default T into the other one.
AxisMap merge_axes(const AxisMap& defaults, const AxisMap& grid) {
  AxisMap out = defaults;
  const bool grid_t = grid.count("T") > 0;
  const bool grid_qk = grid.count("T_q") > 0 || grid.count("T_k") > 0;
  if (grid_t) {
    out.erase("T_q");
    out.erase("T_k");
  }
  if (grid_qk && out.count("T")) {
    const AxisValues t = out["T"];
    out.erase("T");
    if (!grid.count("T_q")) out["T_q"] = t;
    if (!grid.count("T_k")) out["T_k"] = t;
  }
  for (const auto& [axis, values] : grid) out[axis] = values;
  return out;
}

std::vector<std::string> parse_backends(const json& v, const std::string& pointer, Errors& errors) {
  std::vector<std::string> out;
  if (!v.is_array() || v.empty()) {
    errors.add(pointer, "expected a non-empty list of backend names (" +
                            join(known_backend_names()) + "), got " + show(v));
    return out;
  }
  const auto& known = known_backend_names();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = ptr(pointer, i);
    if (!v[i].is_string()) {
      errors.add(p, "expected a backend name, got " + show(v[i]));
      continue;
    }
    const auto name = v[i].get<std::string>();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string msg = "unknown backend \"" + name + "\"";
      const std::string near = did_you_mean(name, known);
      if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
      errors.add(p, msg + "; known backends: " + join(known));
      continue;
    }
    if (std::find(out.begin(), out.end(), name) != out.end()) {
      errors.add(p, "duplicate backend \"" + name + "\"");
      continue;
    }
    out.push_back(name);
  }
  return out;
}

std::vector<Selector> parse_filters(const json& sweep, const char* key, const std::string& sp,
                                    Errors& errors) {
  std::vector<Selector> out;
  if (!sweep.contains(key)) return out;
  const json& v = sweep[key];
  const std::string p = ptr(sp, key);
  if (!v.is_array() || v.empty()) {
    errors.add(p, "expected a non-empty list of selector objects (a case is " +
                      std::string(key == std::string("where") ? "kept" : "dropped") +
                      " when it matches any of them), got " + show(v));
    return out;
  }
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(parse_selector(v[i], ptr(p, i), errors));
  return out;
}

// One factor of the product: a single axis, or a zip group of axes that advance together.
struct Factor {
  std::vector<std::string> axes;
  std::size_t count = 0;
  std::size_t order = 0;  // position in the expansion order
};

void set_axis(Case& c, const std::string& axis, const json& v) {
  if (const AxisDef* a = find_axis(axis)) a->set(c, v);
}

// A paged case's page table: what contradicts it (pointer, message), or nothing. Paged combines
// with dense batches only, and its page indices are int32.
std::vector<std::pair<std::string, std::string>> paged_problems(
    const Case& c, const std::optional<std::string>& kv_layout_at,
    const std::optional<std::string>& lengths_at) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!c.paged()) return out;
  const std::string at = kv_layout_at.value_or("/defaults/kv_layout");
  if (c.varlen()) {
    out.emplace_back(at, "kv_layout \"paged\" with lengths (given at " + lengths_at.value_or("?") +
                             "): a paged KV cache is built for dense batches only, not for "
                             "variable-length ones; give the paged points a sweep without "
                             "lengths, or kv_layout \"contiguous\"");
    return out;
  }
  const std::int64_t pages = c.B * ((c.T_k + c.page_size - 1) / c.page_size);
  if (pages > INT32_MAX) {
    out.emplace_back(at, "a paged KV cache of " + std::to_string(pages) +
                             " pages (B * ceil(T_k / page_size)) overflows the int32 page table");
  }
  return out;
}

// A variant other than 0 for a backend that has none, or beyond the count its catalog entry
// knows for the case's D: the message, or "" when the case may have it.
std::string variant_problem(const Case& c) {
  if (c.variant == 0) return {};
  const BackendEntry* e = find_backend_entry(c.backend);
  if (!e || !e->variants) {
    return "variant " + std::to_string(c.variant) + " for backend \"" + c.backend +
           "\", which has no variants (only a dev-variant backend takes one: " +
           catalog_names_prose([](const BackendEntry& x) { return x.variants; }) +
           "); give the variant axis in a sweep of its own";
  }
  if (e->variant_count) {
    const int n = e->variant_count(c.D);
    if (c.variant >= n) {
      return "variant " + std::to_string(c.variant) + " is out of range for backend \"" +
             c.backend + "\" at D = " + std::to_string(c.D) + " (variants 0.." +
             std::to_string(n - 1) + ")";
    }
  }
  return {};
}

std::string describe_shape(const Case& c) {
  return "B=" + std::to_string(c.B) + ", H=" + std::to_string(c.H) +
         ", H_kv=" + std::to_string(c.H_kv) + ", T_q=" + std::to_string(c.T_q) +
         ", T_k=" + std::to_string(c.T_k) + ", D=" + std::to_string(c.D);
}

void expand_one(const json& sweep, const std::string& sp, const AxisMap& defaults,
                const MeasureSettings& top_measure, std::set<std::string>& names,
                std::vector<Case>& cases, Errors& errors) {
  if (!sweep.is_object()) {
    errors.add(sp, "expected a sweep object, got " + show(sweep));
    return;
  }
  const std::size_t before = errors.size();
  check_keys(
      sweep, sp,
      {"name", "description", "scope", "backends", "grid", "zip", "where", "exclude", "measure"},
      "sweep key", errors);
  if (sweep.contains("scope") && sweep["scope"] != "attention") {
    errors.add(ptr(sp, "scope"), "expected \"attention\" (the default) or \"transformer\", got " +
                                     show(sweep["scope"]));
  }
  const std::string name = sweep_name(sweep, sp, names, errors);
  std::vector<std::string> backends;
  if (!sweep.contains("backends")) {
    errors.add(sp,
               "missing required \"backends\" (a list of: " + join(known_backend_names()) + ")");
  } else {
    backends = parse_backends(sweep["backends"], ptr(sp, "backends"), errors);
  }

  AxisMap grid;
  const std::string gp = ptr(sp, "grid");
  if (sweep.contains("grid")) {
    const json& g = sweep["grid"];
    if (!g.is_object()) {
      errors.add(gp, "expected an object of axis -> values, got " + show(g));
    } else if (g.empty()) {
      errors.add(gp, "empty grid; give at least one axis (" + join(grid_axis_names()) +
                         "), or leave \"grid\" out to use /defaults alone");
    } else {
      grid = parse_axes(g, gp, errors);
    }
  }
  const AxisMap axes = merge_axes(defaults, grid);
  const std::string where_given = sweep.contains("grid") ? gp : sp;
  for (const char* need : {"H", "D"}) {
    if (!axes.count(need)) {
      errors.add(where_given, std::string("missing axis \"") + need +
                                  "\"; give it in the sweep's grid or in /defaults");
    }
  }
  // A lengths axis whose values were refused is already reported; it still gives the length.
  const bool lengths_given =
      axes.count("lengths") ||
      (sweep.contains("grid") && sweep["grid"].is_object() && sweep["grid"].contains("lengths"));
  if (!axes.count("T") && !(axes.count("T_q") && axes.count("T_k")) && !lengths_given) {
    errors.add(where_given,
               "missing sequence length: give T (T_q = T_k), or both T_q and T_k, or the "
               "lengths of a variable-length batch, in the sweep's grid or in /defaults");
  }
  VarlenAxes varlen_axes;
  const auto pointer_of = [&](const AxisMap& m, const char* axis) -> std::optional<std::string> {
    const auto it = m.find(axis);
    if (it == m.end()) return std::nullopt;
    return it->second.pointer;
  };
  varlen_axes.lengths = pointer_of(axes, "lengths");
  varlen_axes.packing = pointer_of(axes, "packing");
  varlen_axes.T = pointer_of(axes, "T");
  if (!varlen_axes.T) varlen_axes.T = pointer_of(axes, "T_q");
  if (!varlen_axes.T) varlen_axes.T = pointer_of(axes, "T_k");
  varlen_axes.grid_B = pointer_of(grid, "B");
  varlen_axes.B = pointer_of(axes, "B");
  varlen_axes.layout = pointer_of(axes, "layout");
  const std::optional<std::string> kv_layout_at = pointer_of(axes, "kv_layout");
  const std::optional<std::string> page_size_at = pointer_of(axes, "page_size");

  MeasureSettings measure = top_measure;
  if (sweep.contains("measure")) {
    measure = parse_measure(sweep["measure"], ptr(sp, "measure"), top_measure, errors);
  }
  measure.min_samples = std::min(measure.min_samples, measure.max_samples);

  const auto where = parse_filters(sweep, "where", sp, errors);
  const auto exclude = parse_filters(sweep, "exclude", sp, errors);

  // Factors of the product: zip groups first, then every remaining axis on its own.
  std::vector<Factor> factors;
  std::set<std::string> zipped;
  if (sweep.contains("zip")) {
    const json& z = sweep["zip"];
    const std::string zp = ptr(sp, "zip");
    if (!z.is_array() || z.empty()) {
      errors.add(zp,
                 "expected a non-empty list of axis groups, e.g. [[\"B\", \"T\"]], got " + show(z));
    } else {
      for (std::size_t gi = 0; gi < z.size(); ++gi) {
        const std::string gip = ptr(zp, gi);
        const json& group = z[gi];
        if (!group.is_array() || group.size() < 2) {
          errors.add(gip, "expected a list of at least two axis names to zip, got " + show(group));
          continue;
        }
        Factor f;
        f.order = grid_axis_names().size();
        bool ok = true;
        for (std::size_t ai = 0; ai < group.size(); ++ai) {
          const std::string ap = ptr(gip, ai);
          if (!group[ai].is_string() || !is_grid_axis(group[ai].get<std::string>())) {
            std::string msg = "expected an axis name, got " + show(group[ai]);
            if (group[ai].is_string()) {
              const std::string near =
                  did_you_mean(group[ai].get<std::string>(), grid_axis_names());
              if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
            }
            errors.add(ap, msg + "; allowed: " + join(grid_axis_names()));
            ok = false;
            continue;
          }
          const auto axis = group[ai].get<std::string>();
          if (!axes.count(axis)) {
            errors.add(ap, "axis \"" + axis + "\" is not in this sweep's grid or /defaults");
            ok = false;
            continue;
          }
          if (!zipped.insert(axis).second) {
            errors.add(ap, "axis \"" + axis + "\" appears in more than one zip position");
            ok = false;
            continue;
          }
          const std::size_t n = axes.at(axis).values.size();
          if (!f.axes.empty() && n != f.count) {
            errors.add(ap, "cannot zip \"" + axis + "\" (" + std::to_string(n) +
                               " values) with \"" + f.axes.front() + "\" (" +
                               std::to_string(f.count) +
                               " values); zipped axes need the same number of values");
            ok = false;
            continue;
          }
          f.axes.push_back(axis);
          f.count = n;
          f.order = std::min(f.order, axis_index(axis));
        }
        if (ok) factors.push_back(f);
      }
    }
  }
  if (errors.size() != before) return;

  for (const auto& [axis, values] : axes) {
    if (zipped.count(axis)) continue;
    factors.push_back(Factor{{axis}, values.values.size(), axis_index(axis)});
  }
  std::sort(factors.begin(), factors.end(),
            [](const Factor& a, const Factor& b) { return a.order < b.order; });

  // Refuse before materialising anything too large.
  std::int64_t total = static_cast<std::int64_t>(backends.size());
  for (const auto& f : factors) {
    total *= static_cast<std::int64_t>(f.count);
    if (total > kMaxCases) break;
  }
  if (total > kMaxCases) {
    errors.add(sp, "expands to more than " + std::to_string(kMaxCases) +
                       " cases (before where/exclude); narrow the grid or split the sweep");
    return;
  }

  std::vector<std::size_t> idx(factors.size(), 0);
  std::set<std::string> reported;
  std::size_t kept = 0;
  while (true) {
    Case c;
    c.sweep = name;
    c.measure = measure;
    bool has_hkv = false;
    for (std::size_t fi = 0; fi < factors.size(); ++fi) {
      for (const auto& axis : factors[fi].axes) {
        set_axis(c, axis, axes.at(axis).values[idx[fi]]);
        if (axis == "H_kv") has_hkv = true;
      }
    }
    if (!has_hkv) c.H_kv = c.H;
    if (c.D_v == c.D) c.D_v = 0;  // the same head dim: no D_v of its own (ids, params)
    if (c.paged() && c.page_size == 0) c.page_size = kDefaultPageSize;

    bool shape_ok = true;
    for (const auto& [pointer, msg] : finish_varlen(c, varlen_axes)) {
      if (reported.insert(msg).second) errors.add(pointer, msg);
      shape_ok = false;
    }
    for (const auto& [pointer, msg] : paged_problems(c, kv_layout_at, varlen_axes.lengths)) {
      if (reported.insert(msg).second) errors.add(pointer, msg);
      shape_ok = false;
    }
    if (c.split_head_dims() && (c.varlen() || c.paged())) {
      const std::string msg = "D_v = " + std::to_string(c.Dv()) +
                              " with D = " + std::to_string(c.D) + ": " +
                              (c.varlen() ? "variable-length batches" : "paged KV caches") +
                              " take one head dim for Q, K, V and O (dense batches only)";
      if (reported.insert(msg).second) errors.add(axes.at("D_v").pointer, msg);
      shape_ok = false;
    }
    if (c.H % c.H_kv != 0) {
      const std::string msg = "H = " + std::to_string(c.H) +
                              " is not a multiple of H_kv = " + std::to_string(c.H_kv) +
                              " (grouped-query attention needs H_kv " + "to divide H)";
      if (reported.insert(msg).second) errors.add(axes.at("H_kv").pointer, msg);
      shape_ok = false;
    }
    std::string why;
    if (!sizes_fit_int64(c, &why)) {
      const std::string msg = "sizes too large (" + describe_shape(c) + "): " + why;
      if (reported.insert(msg).second) errors.add(where_given, msg);
      shape_ok = false;
    }
    if (shape_ok) {
      for (const auto& b : backends) {
        c.backend = c.role = b;
        const auto hit = [&](const Selector& s) { return s.matches(c); };
        if (!where.empty() && std::none_of(where.begin(), where.end(), hit)) continue;
        if (std::any_of(exclude.begin(), exclude.end(), hit)) continue;
        // causal is the window [-1, 0], and a window on top of it intersects: right 0 and -1
        // then mean the same, stored as -1 so that both give one case (one id); a right above
        // 0 would be silently cut to 0, so it is refused (after where / exclude, which may
        // drop such combinations of a grid).
        if (c.causal && c.window.right > 0) {
          const std::string msg =
              "window " + window_text(c.window) +
              " with causal: true: causal already stops every row at its diagonal (right 0), so "
              "a right of " +
              std::to_string(c.window.right) +
              " would be ignored; give right 0 or -1 with causal, or causal: false to look ahead";
          if (reported.insert(msg).second) errors.add(axes.at("window").pointer, msg);
          continue;
        }
        // Pages exist only in the paged layout; like the window above this is refused after
        // where / exclude.
        if (!c.paged() && c.page_size != 0) {
          const std::string msg =
              "page_size " + std::to_string(c.page_size) +
              " with kv_layout \"contiguous\": only a paged KV cache has pages; give page_size "
              "in a sweep whose kv_layout is \"paged\" (a sweep of its own for the paged points "
              "when contiguous ones are wanted too), or leave it out";
          if (reported.insert(msg).second) errors.add(page_size_at.value_or(where_given), msg);
          continue;
        }
        Case k = c;
        if (k.causal && k.window.right == 0) k.window.right = -1;
        const std::string variant = variant_problem(k);
        if (!variant.empty()) {
          if (reported.insert(variant).second) errors.add(axes.at("variant").pointer, variant);
          continue;
        }
        cases.push_back(k);
        ++kept;
      }
    }

    // Advance the mixed-radix counter, last factor fastest.
    std::size_t fi = factors.size();
    while (fi > 0) {
      --fi;
      if (++idx[fi] < factors[fi].count) break;
      idx[fi] = 0;
      if (fi == 0) {
        fi = factors.size();
        break;
      }
    }
    if (fi == factors.size() || factors.empty()) break;
  }
  if (kept == 0 && errors.size() == before) {
    errors.add(sp, "where/exclude remove every case of this sweep");
  }
}

}  // namespace

void expand_sweeps(const json& raw, const MeasureSettings& top_measure, std::vector<Case>& cases,
                   std::vector<ModelCase>& model_cases, Errors& errors) {
  AxisMap defaults;
  if (raw.contains("defaults")) {
    const json& d = raw["defaults"];
    if (!d.is_object()) {
      errors.add("/defaults", "expected an object of axis -> value, got " + show(d));
    } else {
      defaults = parse_axes(d, "/defaults", errors);
    }
  }
  if (!raw.contains("sweeps")) {
    errors.add("", "missing required \"sweeps\" (a non-empty list of sweep objects)");
    return;
  }
  const json& sweeps = raw["sweeps"];
  if (!sweeps.is_array() || sweeps.empty()) {
    errors.add("/sweeps", "expected a non-empty list of sweep objects, got " + show(sweeps));
    return;
  }
  std::set<std::string> names;
  std::size_t first_transformer = sweeps.size();  // named when the scopes mix
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    if (is_transformer_sweep(sweeps[i])) {
      expand_model_sweep(sweeps[i], ptr("/sweeps", i), top_measure, names, model_cases, errors);
      first_transformer = std::min(first_transformer, i);
      continue;
    }
    expand_one(sweeps[i], ptr("/sweeps", i), defaults, top_measure, names, cases, errors);
    if (static_cast<std::int64_t>(cases.size()) > kMaxCases) {
      errors.add("/sweeps", "the sweeps expand to more than " + std::to_string(kMaxCases) +
                                " cases in all; narrow the grids or split the config");
      return;
    }
  }
  // One results file holds one scope's cases (their schemas differ).
  if (first_transformer < sweeps.size() && !cases.empty()) {
    errors.add(ptr("/sweeps", first_transformer),
               "a config holds attention sweeps or \"scope\": \"transformer\" sweeps, not "
               "both; put this sweep in a config of its own");
  }
  if (static_cast<std::int64_t>(model_cases.size()) > kMaxCases) {
    errors.add("/sweeps", "the sweeps expand to more than " + std::to_string(kMaxCases) +
                              " cases in all; narrow the grids or split the config");
  }
}

}  // namespace fa2b::config_detail
