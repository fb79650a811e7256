// SPDX-License-Identifier: Apache-2.0
// Transformer sweeps ("scope": "transformer"): validate the model axes and expand the grid
// into ModelCases. Deliberately separate from the attention sweeps' expansion (expand.cpp):
// the attention path's axes, selectors and ids stay as they are.
#include <algorithm>
#include <map>

#include "config/config_internal.h"
#include "core/backend_catalog.h"
#include "core/model_plan.h"

namespace fa2b::config_detail {
namespace {

// Grid axes of a transformer sweep, in expansion order (the last varies fastest).
const std::vector<std::string>& model_axis_names() {
  static const std::vector<std::string> names = {"layers", "hidden",    "heads",    "H_kv",
                                                 "vocab",  "mlp_ratio", "B",        "T",
                                                 "dtype",  "optimizer", "recompute"};
  return names;
}

bool is_model_int_axis(const std::string& axis) {
  return axis != "dtype" && axis != "optimizer" && axis != "recompute";
}

std::optional<json> check_word(const json& v, const std::vector<std::string>& allowed,
                               const std::string& what, const std::string& pointer,
                               Errors& errors) {
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return v;
    std::string msg = "unknown " + what + " \"" + s + "\"";
    const std::string near = did_you_mean(s, allowed);
    if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
    errors.add(pointer, msg + "; allowed: " + join(allowed));
    return std::nullopt;
  }
  errors.add(pointer, "expected " + what + " (" + join(allowed, " | ") + "), got " + show(v));
  return std::nullopt;
}

// A value or a non-empty list of values of one axis. Integer axes take ranges as the
// attention axes do (validated as a positive-integer axis, "B").
std::optional<std::vector<json>> model_axis_values(const std::string& axis, const json& v,
                                                   const std::string& pointer, Errors& errors) {
  if (is_model_int_axis(axis)) return expand_axis_values("B", v, pointer, errors);
  if (axis == "dtype") return expand_axis_values("dtype", v, pointer, errors);
  const std::vector<std::string> allowed = axis == "optimizer"
                                               ? std::vector<std::string>{"adamw", "none"}
                                               : std::vector<std::string>{"off", "on"};
  const json list = v.is_array() ? v : json::array({v});
  if (list.empty()) {
    errors.add(pointer, "empty list; give at least one value");
    return std::nullopt;
  }
  std::vector<json> out;
  const std::size_t before = errors.size();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto w =
        check_word(list[i], allowed, axis, v.is_array() ? ptr(pointer, i) : pointer, errors);
    if (!w) continue;
    if (std::find(out.begin(), out.end(), *w) != out.end()) {
      errors.add(ptr(pointer, i), "duplicate value " + show(*w) + " (each value once)");
      continue;
    }
    out.push_back(*w);
  }
  if (errors.size() != before) return std::nullopt;
  return out;
}

void set_model_axis(ModelCase& m, const std::string& axis, const json& v) {
  if (axis == "layers") m.layers = v.get<std::int64_t>();
  if (axis == "hidden") m.hidden = v.get<std::int64_t>();
  if (axis == "heads") m.heads = v.get<std::int64_t>();
  if (axis == "H_kv") m.H_kv = v.get<std::int64_t>();
  if (axis == "vocab") m.vocab = v.get<std::int64_t>();
  if (axis == "mlp_ratio") m.mlp_ratio = v.get<std::int64_t>();
  if (axis == "B") m.B = v.get<std::int64_t>();
  if (axis == "T") m.T = v.get<std::int64_t>();
  if (axis == "dtype") m.dtype = *parse_dtype(v.get<std::string>());
  if (axis == "optimizer") m.optimizer = *parse_optimizer(v.get<std::string>());
  if (axis == "recompute") m.recompute = v.get<std::string>() == "on";
}

// The model's own consistency; reported once per distinct message, at the axis to change.
bool model_case_ok(const ModelCase& m, const std::map<std::string, std::string>& where,
                   std::vector<std::string>& reported, Errors& errors) {
  auto report = [&](const std::string& axis, const std::string& msg) {
    if (std::find(reported.begin(), reported.end(), msg) != reported.end()) return;
    reported.push_back(msg);
    errors.add(where.at(axis), msg);
  };
  bool ok = true;
  if (m.hidden % m.heads != 0) {
    report("heads", "hidden = " + std::to_string(m.hidden) + " is not a multiple of heads = " +
                        std::to_string(m.heads) + " (the head dim D is hidden / heads)");
    ok = false;
  }
  if (m.heads % m.H_kv != 0) {
    report(where.count("H_kv") ? "H_kv" : "heads",
           "heads = " + std::to_string(m.heads) + " is not a multiple of H_kv = " +
               std::to_string(m.H_kv) + " (grouped-query attention needs H_kv to divide heads)");
    ok = false;
  }
  std::string why;
  if (ok && !model_sizes_fit_int64(m, &why)) {
    report("grid", "sizes too large (" + m.shape_key() + "): " + why);
    ok = false;
  }
  return ok;
}

}  // namespace

bool is_transformer_sweep(const json& sweep) {
  return sweep.is_object() && sweep.contains("scope") && sweep["scope"] == "transformer";
}

void expand_model_sweep(const json& sweep, const std::string& sp,
                        const MeasureSettings& top_measure, std::set<std::string>& names,
                        std::vector<ModelCase>& cases, Errors& errors) {
  const std::size_t before = errors.size();
  check_keys(sweep, sp, {"name", "description", "scope", "backends", "grid", "measure"},
             "transformer sweep key", errors);
  const std::string name = sweep_name(sweep, sp, names, errors);

  std::vector<std::string> backends;
  const std::string bp = ptr(sp, "backends");
  if (!sweep.contains("backends")) {
    errors.add(sp, "missing required \"backends\" (the attention inside the model; a list of: " +
                       join(known_backend_names()) + ")");
  } else if (!sweep["backends"].is_array() || sweep["backends"].empty()) {
    errors.add(bp, "expected a non-empty list of backend names, got " + show(sweep["backends"]));
  } else {
    const auto& known = known_backend_names();
    for (std::size_t i = 0; i < sweep["backends"].size(); ++i) {
      const json& b = sweep["backends"][i];
      const auto w = check_word(b, known, "backend", ptr(bp, i), errors);
      if (!w) continue;
      if (std::find(backends.begin(), backends.end(), w->get<std::string>()) != backends.end()) {
        errors.add(ptr(bp, i), "duplicate backend " + show(b));
        continue;
      }
      backends.push_back(w->get<std::string>());
    }
  }

  const std::string gp = ptr(sp, "grid");
  std::map<std::string, std::vector<json>> axes;
  std::map<std::string, std::string> where = {{"grid", gp}};
  if (!sweep.contains("grid") || !sweep["grid"].is_object()) {
    errors.add(sweep.contains("grid") ? gp : sp,
               "expected \"grid\": an object of model axes (" + join(model_axis_names()) + ")");
  } else {
    const json& g = sweep["grid"];
    check_keys(g, gp, model_axis_names(), "transformer axis", errors);
    for (const auto& item : g.items()) {
      const auto& names_ = model_axis_names();
      if (std::find(names_.begin(), names_.end(), item.key()) == names_.end()) continue;
      const std::string p = ptr(gp, item.key());
      where[item.key()] = p;
      if (auto values = model_axis_values(item.key(), item.value(), p, errors)) {
        axes[item.key()] = std::move(*values);
      }
    }
    for (const char* need : {"layers", "hidden", "heads", "vocab", "B", "T"}) {
      if (!g.contains(need)) {
        errors.add(gp, std::string("missing axis \"") + need + "\" of the transformer sweep");
      }
    }
  }
  MeasureSettings measure = top_measure;
  if (sweep.contains("measure")) {
    measure = parse_measure(sweep["measure"], ptr(sp, "measure"), top_measure, errors);
  }
  measure.min_samples = std::min(measure.min_samples, measure.max_samples);
  if (errors.size() != before) return;

  // Mixed-radix product over the axes given, in model_axis_names() order, backends fastest.
  std::vector<std::string> order;
  std::int64_t total = static_cast<std::int64_t>(backends.size());
  for (const auto& a : model_axis_names()) {
    if (!axes.count(a)) continue;
    order.push_back(a);
    total *= static_cast<std::int64_t>(axes[a].size());
    if (total > kMaxCases) {
      errors.add(sp, "expands to more than " + std::to_string(kMaxCases) + " cases");
      return;
    }
  }
  std::vector<std::size_t> idx(order.size(), 0);
  std::vector<std::string> reported;
  while (true) {
    ModelCase m;
    m.sweep = name;
    m.measure = measure;
    m.dtype = DType::bf16;  // the article's; a grid "dtype" replaces it
    for (std::size_t i = 0; i < order.size(); ++i)
      set_model_axis(m, order[i], axes[order[i]][idx[i]]);
    if (!axes.count("H_kv")) m.H_kv = m.heads;
    if (model_case_ok(m, where, reported, errors)) {
      for (const auto& b : backends) {
        m.backend = m.role = b;
        cases.push_back(m);
      }
    }
    std::size_t i = order.size();
    while (i > 0 && ++idx[i - 1] == axes[order[i - 1]].size()) idx[--i] = 0;
    if (i == 0) break;
  }
}

}  // namespace fa2b::config_detail
