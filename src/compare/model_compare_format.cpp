// SPDX-License-Identifier: Apache-2.0
// Renderings of a ModelComparison: terminal table, Markdown, CSV and JSON, with the columns of
// a training step (peak, step time, tokens/s) instead of the attention compare's timings.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "compare/model_compare.h"
#include "io/json_detail.h"
#include "report/report.h"

namespace fa2b {
namespace {

using nlohmann::ordered_json;

std::string times(double v) {
  return std::isfinite(v) ? fmt::format("{:.3f}x", v) : "-";
}
std::string gib(const ModelCaseRecord& r) {
  if (r.status != Status::ok) return std::string(to_string(r.status));
  return fmt::format("{:.2f}", static_cast<double>(r.peak_bytes) / (1024.0 * 1024 * 1024));
}
std::string ms(const ModelCaseRecord& r) {
  return r.status == Status::ok ? fmt::format("{:.1f}", r.step_ms)
                                : std::string(to_string(r.status));
}
std::string tokens(const ModelCaseRecord& r) {
  return r.status == Status::ok ? fmt::format("{:.0f}", r.tokens_per_s)
                                : std::string(to_string(r.status));
}
std::string csv_num(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : "";
}
ordered_json num_json(double v) {
  return json_detail::number_json<ordered_json>(v);
}

std::string counts_line(const ModelComparison& c) {
  return fmt::format(
      "{} same, {} faster, {} slower, {} status changes, {} not ok in both; {} regressions; "
      "{} only in BASE, {} only in NEW",
      c.counts.same, c.counts.faster, c.counts.slower, c.counts.status, c.counts.not_ok_both,
      c.counts.regressions, c.only_base.size(), c.only_new.size());
}

std::string threshold_note(const ModelComparison& c) {
  return fmt::format(
      "Ratios are NEW / BASE. Threshold {:g}% on the step time (a training step has no p10-p90 "
      "spread: beyond the threshold is faster/slower).",
      c.options.threshold * 100);
}

// The first columns of a row: the pair's backends and the shape, or the case id.
std::vector<std::string> lead(const ModelComparison& c, const ModelCaseComparison& cc) {
  if (c.by_pair()) return {cc.next.backend, cc.base.backend, cc.shape_key};
  return {cc.base.id};
}
std::vector<std::string> lead_header(const ModelComparison& c) {
  if (c.by_pair()) return {"new backend", "base backend", "shape"};
  return {"case"};
}

std::vector<std::string> row_cells(const ModelComparison& c, const ModelCaseComparison& cc) {
  std::vector<std::string> row = lead(c, cc);
  for (const std::string& s :
       {std::string(to_string(cc.base.status)), std::string(to_string(cc.next.status)),
        gib(cc.base), gib(cc.next), times(cc.peak_ratio), ms(cc.base), ms(cc.next),
        times(cc.step_ratio), tokens(cc.base), tokens(cc.next), times(cc.tokens_ratio),
        cc.regression ? cc.verdict + " (regression)" : cc.verdict})
    row.push_back(s);
  return row;
}
const std::vector<std::string> kValueHeader = {
    "BASE status", "NEW status", "BASE peak GiB", "NEW peak GiB", "peak ×",     "BASE step ms",
    "NEW step ms", "step ×",     "BASE tokens/s", "NEW tokens/s", "tokens/s ×", "verdict"};

std::vector<std::string> header(const ModelComparison& c) {
  std::vector<std::string> h = lead_header(c);
  h.insert(h.end(), kValueHeader.begin(), kValueHeader.end());
  return h;
}

std::string geomean_label(const ModelGeomeanRow& g) {
  return g.backend == g.new_backend ? g.backend : g.new_backend + " vs " + g.backend;
}

}  // namespace

std::string model_compare_table_text(const ModelComparison& c) {
  std::string out = fmt::format("BASE {}\nNEW  {}\n", c.base_file, c.new_file);
  for (const std::string& w : c.warnings) out += w + "\n";
  out += threshold_note(c) + "\n\n";
  std::vector<std::vector<std::string>> rows{header(c)};
  for (const ModelCaseComparison& cc : c.cases) rows.push_back(row_cells(c, cc));
  out += aligned_columns(rows);
  if (!c.geomean.empty()) {
    out += "\nGeometric mean over the cases ok in both:\n";
    std::vector<std::vector<std::string>> g{{"backend", "n", "peak ×", "step ×", "tokens/s ×"}};
    for (const ModelGeomeanRow& r : c.geomean) {
      g.push_back({geomean_label(r), std::to_string(r.n), times(r.peak_ratio), times(r.step_ratio),
                   times(r.tokens_ratio)});
    }
    out += aligned_columns(g);
  }
  out += "\n" + counts_line(c) + "\n";
  for (const std::string& id : c.only_base) out += "only in BASE: " + id + "\n";
  for (const std::string& id : c.only_new) out += "only in NEW: " + id + "\n";
  return out;
}

std::string model_compare_md_text(const ModelComparison& c) {
  std::string out = "## fa2bench compare (transformer training step)\n\n";
  out += fmt::format("- BASE: `{}`\n- NEW: `{}`\n\n", md_cell(c.base_file), md_cell(c.new_file));
  for (const std::string& w : c.warnings) out += "> " + md_cell(w) + "\n";
  for (const std::string& f : c.failures) out += "> **failing**: " + md_cell(f) + "\n";
  if (!c.warnings.empty() || !c.failures.empty()) out += "\n";
  out += threshold_note(c) + "\n\n";
  const std::vector<std::string> h = header(c);
  out += fmt::format("| {} |\n|{}\n", fmt::join(h, " | "),
                     fmt::join(std::vector<std::string>(h.size(), "---|"), ""));
  for (const ModelCaseComparison& cc : c.cases) {
    std::vector<std::string> cells = row_cells(c, cc);
    for (std::string& s : cells) s = md_cell(s);
    if (cc.regression) cells.back() = "**" + cc.verdict + "** ❌";
    out += fmt::format("| {} |\n", fmt::join(cells, " | "));
  }
  if (!c.geomean.empty()) {
    out += "\n### Geometric mean over the cases ok in both\n\n";
    out += "| backend | n | peak × | step × | tokens/s × |\n|---|--:|--:|--:|--:|\n";
    for (const ModelGeomeanRow& r : c.geomean) {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", md_cell(geomean_label(r)), r.n,
                         times(r.peak_ratio), times(r.step_ratio), times(r.tokens_ratio));
    }
  }
  out += "\n**Verdicts:** " + counts_line(c) + "\n";
  for (const std::string& id : c.only_base) out += "- only in BASE: `" + id + "`\n";
  for (const std::string& id : c.only_new) out += "- only in NEW: `" + id + "`\n";
  return out;
}

std::string model_compare_csv_text(const ModelComparison& c) {
  std::string out =
      "id,new_backend,base_backend,shape,verdict,regression,base_status,new_status,"
      "base_peak_bytes,new_peak_bytes,peak_ratio,base_step_ms,new_step_ms,step_ratio,"
      "base_tokens_per_s,new_tokens_per_s,tokens_ratio\n";
  for (const ModelCaseComparison& cc : c.cases) {
    const ModelCaseRecord& b = cc.base;
    const ModelCaseRecord& n = cc.next;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(cc.id),
                       csv_field(n.backend), csv_field(b.backend), csv_field(cc.shape_key),
                       csv_field(cc.verdict), cc.regression ? "true" : "false", to_string(b.status),
                       to_string(n.status), b.peak_bytes, n.peak_bytes, csv_num(cc.peak_ratio),
                       csv_num(b.step_ms), csv_num(n.step_ms), csv_num(cc.step_ratio),
                       csv_num(b.tokens_per_s), csv_num(n.tokens_per_s), csv_num(cc.tokens_ratio));
  }
  return out;
}

ordered_json model_compare_json(const ModelComparison& c) {
  ordered_json j;
  j["kind"] = "fa2bench-model-compare";
  j["base"] = c.base_file;
  j["new"] = c.new_file;
  j["threshold"] = c.options.threshold;
  ordered_json pairs = ordered_json::array();
  for (const BackendPair& p : c.options.pairs) pairs.push_back(p.key());
  j["pairs"] = pairs;
  ordered_json cases = ordered_json::array();
  for (const ModelCaseComparison& cc : c.cases) {
    auto side = [](const ModelCaseRecord& r) {
      return ordered_json{{"id", r.id},
                          {"status", to_string(r.status)},
                          {"peak_bytes", r.peak_bytes},
                          {"step_ms", num_json(r.step_ms)},
                          {"tokens_per_s", num_json(r.tokens_per_s)}};
    };
    cases.push_back({{"id", cc.id},
                     {"shape", cc.shape_key},
                     {"verdict", cc.verdict},
                     {"regression", cc.regression},
                     {"base", side(cc.base)},
                     {"new", side(cc.next)},
                     {"peak_ratio", num_json(cc.peak_ratio)},
                     {"step_ratio", num_json(cc.step_ratio)},
                     {"tokens_ratio", num_json(cc.tokens_ratio)}});
  }
  j["cases"] = cases;
  ordered_json geo = ordered_json::array();
  for (const ModelGeomeanRow& r : c.geomean) {
    geo.push_back({{"base_backend", r.backend},
                   {"new_backend", r.new_backend},
                   {"n", r.n},
                   {"peak_ratio", num_json(r.peak_ratio)},
                   {"step_ratio", num_json(r.step_ratio)},
                   {"tokens_ratio", num_json(r.tokens_ratio)}});
  }
  j["geomean"] = geo;
  j["only_base"] = c.only_base;
  j["only_new"] = c.only_new;
  j["warnings"] = c.warnings;
  j["failures"] = c.failures;
  return j;
}

}  // namespace fa2b
