// SPDX-License-Identifier: Apache-2.0
// `fa2bench tune` without its flags: the expansion into a tune config, the ranking of the
// results, and the sweep that runs one through the other (app/tune.h).
#include "app/tune.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>

#include "app/exit_codes.h"
#include "app/sweep.h"
#include "backends/backend.h"
#include "core/axis_table.h"
#include "core/backend_catalog.h"
#include "io/atomic_file.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

std::string fmt_num(double v, int prec) {
  return std::isnan(v) ? std::string("-") : fmt::format("{:.{}f}", v, prec);
}

std::string fmt_err(double v) {
  return std::isnan(v) ? std::string("-") : fmt::format("{:.1e}", v);
}

// "variant 3: 4wx2 128x64 qreg s1 head" -> "4wx2 128x64 qreg s1 head".
std::string variant_name(const std::string& info) {
  const auto colon = info.find(": ");
  if (info.rfind("variant ", 0) == 0 && colon != std::string::npos) return info.substr(colon + 2);
  return info;
}

}  // namespace

TuneExpansion expand_tune_config(const Config& config, const std::string& role,
                                 const std::string& dev_backend,
                                 const std::function<int(std::int64_t D)>& variant_count) {
  TuneExpansion out;
  out.raw = nlohmann::json::object();
  out.raw["name"] = (config.name.empty() ? std::string("config") : config.name) + " (tune)";
  out.raw["description"] =
      fmt::format("fa2bench tune of {}: each {} case's forward as one case per {} variant",
                  config.path, role, dev_backend);
  nlohmann::json sweeps = nlohmann::json::array();
  std::vector<std::string> seen;
  for (const Case& original : config.cases) {
    if (original.role != role && original.backend != role) continue;
    Case c = original;
    c.mode = Mode::fwd;
    c.variant = 0;
    const std::string shape = c.shape_key();
    if (std::find(seen.begin(), seen.end(), shape) != seen.end()) continue;
    seen.push_back(shape);
    if (c.dtype == DType::fp32) {
      out.notes.push_back(fmt::format("{}: fp32 is not tuned (the kernels take fp16/bf16)", shape));
      continue;
    }
    const int n = variant_count(c.D);
    if (n <= 0) {
      out.notes.push_back(
          fmt::format("{}: {} has no variants for D = {} in this build", shape, dev_backend, c.D));
      continue;
    }
    nlohmann::json variants = nlohmann::json::array();
    for (int v = 0; v < n; ++v) variants.push_back(v);
    // The case's shape from the axis table (core/axis_table.h): each axis's tune rule; the
    // variants swept.
    nlohmann::json grid = nlohmann::json::object();
    const Case defaults;
    for (const AxisDef& a : axis_table()) {
      const bool keep = a.tune == TuneRule::keep ||
                        (a.tune == TuneRule::keep_if_set && a.value(c) != a.value(defaults));
      if (keep) grid[std::string(a.name)] = a.value(c);
    }
    grid["variant"] = variants;
    ++out.shapes;
    out.max_variants = std::max(out.max_variants, static_cast<std::size_t>(n));
    sweeps.push_back({{"name", fmt::format("{}#{}", c.sweep, out.shapes)},
                      {"description", fmt::format("{} of sweep {}", shape, c.sweep)},
                      {"backends", {dev_backend}},
                      {"grid", grid},
                      {"measure", measure_json(c.measure)}});
  }
  out.raw["sweeps"] = sweeps;
  return out;
}

std::vector<TuneRow> rank_tune_results(const ResultSet& rs) {
  // (backend, shape) groups in the order they first appear.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const CaseResult*>> groups;
  for (const CaseResult& r : rs.cases) {
    if (r.c.mode != Mode::fwd || !takes_variants(r.c.backend)) continue;
    Case base = r.c;
    base.variant = 0;
    const std::string key = base.id();
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::vector<TuneRow> rows;
  for (const std::string& key : order) {
    const auto& group = groups[key];
    const CaseResult* base = nullptr;
    for (const CaseResult* r : group)
      if (r->c.variant == 0) base = r;
    const bool base_ok = base && base->status == Status::ok;
    const double base_ms = base_ok ? base->time.median : kNaN;
    const double base_err = base_ok && base->accuracy.checked ? base->accuracy.max_abs_err : kNaN;
    std::vector<TuneRow> ranked, rest;
    for (const CaseResult* r : group) {
      TuneRow row;
      Case shape = r->c;
      shape.variant = 0;
      row.shape = shape.shape_key();
      row.variant = r->c.variant;
      row.name = variant_name(r->backend_info);
      row.status = std::string(to_string(r->status));
      row.max_abs_err = r->accuracy.checked ? r->accuracy.max_abs_err : kNaN;
      bool eligible = false;
      if (r->status != Status::ok) {
        row.verdict = fmt::format("{}: {}", to_string(r->status), r->reason);
      } else {
        row.ms = r->time.median;
        row.tflops = r->tflops;
        row.speedup = base_ms / row.ms;
        if (!r->accuracy.checked) {
          row.verdict = "not verified";
        } else if (r->accuracy.nonfinite > 0 || std::isnan(row.max_abs_err)) {
          row.verdict = fmt::format("MISMATCH: {} non-finite outputs", r->accuracy.nonfinite);
        } else if (!std::isnan(base_err) && row.max_abs_err > base_err + kTuneMismatchAbs) {
          row.verdict = fmt::format("MISMATCH: error {:.1e} vs variant 0's {:.1e}", row.max_abs_err,
                                    base_err);
        } else if (std::isnan(row.ms)) {
          row.verdict = "no median";
        } else {
          eligible = true;
        }
      }
      (eligible ? ranked : rest).push_back(row);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const TuneRow& a, const TuneRow& b) { return a.ms < b.ms; });
    std::stable_sort(rest.begin(), rest.end(),
                     [](const TuneRow& a, const TuneRow& b) { return a.variant < b.variant; });
    if (!ranked.empty()) {
      ranked.front().winner = true;
      ranked.front().verdict = "winner";
    }
    rows.insert(rows.end(), ranked.begin(), ranked.end());
    rows.insert(rows.end(), rest.begin(), rest.end());
  }
  return rows;
}

std::string tune_all_md(const std::vector<TuneRow>& rows) {
  std::string s =
      "| case | variant | ms | TFLOP/s | vs variant 0 | max abs err | verdict |\n"
      "|---|---|--:|--:|--:|--:|---|\n";
  for (const TuneRow& r : rows) {
    s += fmt::format("| {} | {}{}{} | {} | {} | {} | {} | {} |\n", r.shape, r.variant,
                     r.name.empty() ? "" : " ", r.name, fmt_num(r.ms, 4), fmt_num(r.tflops, 1),
                     fmt_num(r.speedup, 3), fmt_err(r.max_abs_err),
                     r.winner ? "**winner**" : r.verdict);
  }
  return s;
}

std::string tune_winners_md(const std::vector<TuneRow>& rows) {
  std::string s =
      "| case | winner | ms | TFLOP/s | vs variant 0 |\n"
      "|---|---|--:|--:|--:|\n";
  for (const TuneRow& r : rows) {
    if (!r.winner) continue;
    s += fmt::format("| {} | {}{}{} | {} | {} | {} |\n", r.shape, r.variant,
                     r.name.empty() ? "" : " ", r.name, fmt_num(r.ms, 4), fmt_num(r.tflops, 1),
                     fmt_num(r.speedup, 3));
  }
  return s;
}

std::string tune_markdown(const std::vector<TuneRow>& rows, const std::string& config_path) {
  return fmt::format("# fa2bench tune: {}\n\n## Winners\n\n{}\n## All variants\n\n{}", config_path,
                     tune_winners_md(rows), tune_all_md(rows));
}

}  // namespace fa2b

namespace fa2b::app {

TuneSweep run_tune_sweep(const TuneArgs& t) {
  TuneSweep result;
  const std::unique_ptr<Backend> dev = make_backend(t.dev_backend);
  if (!dev || !takes_variants(t.dev_backend)) {
    fmt::print(stderr, "fa2bench tune: {} is not a dev-variant backend of this build\n",
               t.dev_backend);
    result.sweep.exit_code = kExitUsage;
    return result;
  }
  SweepArgs a;
  a.config = t.config;
  a.out = t.out.empty() ? "out" : t.out;
  a.set = t.set;
  a.filter = t.filter;
  a.target = t.target;
  a.device = t.device;
  a.isolate = t.isolate;
  a.case_timeout = t.case_timeout;
  a.case_timeout_given = t.case_timeout > 0;
  a.overwrite = t.overwrite;
  a.quiet = t.quiet;
  std::string tuned_path;
  const ConfigRewrite rewrite = [&](Config& config) {
    if (!config.model_cases.empty()) {
      fmt::print(stderr, "fa2bench tune: {} is a transformer config; tune takes attention sweeps\n",
                 config.path);
      return static_cast<int>(kExitUsage);
    }
    const TuneExpansion x = expand_tune_config(
        config, t.role, t.dev_backend, [&](std::int64_t D) { return dev->variant_count(D); });
    // Shapes left out are worth a line each only beside shapes that do get tuned; without any
    // the one message below says why.
    if (x.shapes > 0 && x.max_variants > 1) {
      for (const std::string& n : x.notes) fmt::print(stderr, "fa2bench tune: skipping {}\n", n);
    }
    if (x.shapes == 0 || x.max_variants <= 1) {
      fmt::print(stderr,
                 "fa2bench tune: nothing to tune in {}: {}; tune needs fp16/bf16 {} cases and a "
                 "build with {}'s variants (CUDA, configured with -DFA2BENCH_DEV_KERNELS=ON; "
                 "see docs/tuning.md)\n",
                 config.path,
                 x.shapes == 0 ? fmt::format("no {} case with variants", t.role)
                               : fmt::format("{} has only variant 0 here", t.dev_backend),
                 t.role, t.dev_backend);
      return static_cast<int>(kExitUsage);
    }
    tuned_path = config.path + " (tune)";
    try {
      config = parse_config(x.raw, tuned_path);
    } catch (const ConfigError& e) {
      for (const std::string& m : e.messages()) fmt::print(stderr, "fa2bench tune: {}\n", m);
      return static_cast<int>(kExitUsage);
    }
    return static_cast<int>(kExitOk);
  };
  // A transformer config is refused by the rewrite, before its steps could print.
  result.sweep = run_sweep(a, rewrite, ModelStepPrinter{}, &result.reports_written);
  result.out = a.out;
  result.tuned_path = tuned_path;
  return result;
}

std::optional<std::vector<TuneRow>> rank_tune_run(const std::string& out) {
  try {
    const ResultSet rs = load_results((std::filesystem::path(out) / "results.json").string());
    return rank_tune_results(rs);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench tune: {}\n", e.what());
    return std::nullopt;
  }
}

bool write_tune_md(const std::string& out, const std::vector<TuneRow>& rows,
                   const std::string& tuned_path) {
  try {
    write_text_file_atomic((std::filesystem::path(out) / "tune.md").string(),
                           tune_markdown(rows, tuned_path));
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench tune: {}\n", e.what());
    return false;
  }
  return true;
}

}  // namespace fa2b::app
