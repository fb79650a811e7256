// SPDX-License-Identifier: Apache-2.0
// Renderings of a Comparison: terminal table, Markdown, CSV, JSON, JUnit, job summary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "compare/compare.h"
#include "compare/mann_whitney.h"
#include "io/json_detail.h"
#include "report/junit.h"
#include "report/report.h"

namespace fa2b {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::string sig(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::fabs(v) >= 1000) return fmt::format("{:.0f}", v);
  return fmt::format("{:#.4g}", v);
}
std::string times(double v) {
  return std::isfinite(v) ? fmt::format("{:.3f}x", v) : "-";
}
std::string percent(double v) {
  return std::isfinite(v) ? fmt::format("{:+.1f}%", v * 100) : "-";
}
std::string spread(const TimeStats& t) {
  if (!std::isfinite(t.p10) || !std::isfinite(t.p90)) return "-";
  return fmt::format("{}-{}", sig(t.p10), sig(t.p90));
}
// The U test's p-value, "-" where the rule was not utest.
std::string p_text(double p) {
  if (!std::isfinite(p)) return "-";
  return p < 1e-4 ? fmt::format("{:.1e}", p) : fmt::format("{:.4f}", p);
}
std::string ms_or_status(const CaseResult& r) {
  return r.status == Status::ok ? sig(r.time.median) : std::string(to_string(r.status));
}

// TFLOP/s as shown: absolute, or the percentage of the device's peak with --normalize.
double shown_tflops(const Comparison& c, const CaseResult& r, const RunInfo& run) {
  if (r.status != Status::ok) return kNaN;
  return c.options.normalize ? pct_of_peak_flops(r, run.device) : r.tflops;
}
const char* tflops_label(const Comparison& c) {
  return c.options.normalize ? "% of peak" : "TFLOP/s";
}

std::string json_field(const json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// "NVIDIA H200 (cuda, cc 9.0, 139.8 GiB)"; CPU blocks: "AMD EPYC ... (cpu, 16 threads)".
std::string describe_device(const RunInfo& run) {
  std::vector<std::string> parts;
  const std::string kind = json_field(run.device, "kind");
  if (!kind.empty()) {
    parts.push_back(kind);
  } else if (!run.target.empty()) {
    parts.push_back(run.target);
  }
  const std::string cc = json_field(run.device, "cc");
  if (!cc.empty()) parts.push_back("cc " + cc);
  if (run.device.is_object() && run.device.contains("memory_bytes") &&
      run.device["memory_bytes"].is_number() && run.device["memory_bytes"].get<double>() > 0) {
    parts.push_back(
        fmt::format("{:.1f} GiB", run.device["memory_bytes"].get<double>() / (1 << 30)));
  }
  const std::string threads = json_field(run.device, "threads");
  if (!threads.empty()) parts.push_back(threads + " threads");
  if (std::isfinite(run.peak_tflops))
    parts.push_back(fmt::format("peak {} TFLOP/s", run.peak_tflops));
  std::string text = device_name(run.device);
  if (!parts.empty()) text += " (" + fmt::format("{}", fmt::join(parts, ", ")) + ")";
  return text;
}

std::string describe_tool(const RunInfo& run) {
  const std::string version = json_field(run.tool, "version");
  const std::string git = json_field(run.tool, "git");
  if (version.empty() && git.empty()) return "unknown version";
  return fmt::format("fa2bench {}{}", version.empty() ? "?" : version,
                     git.empty() ? "" : " (git " + git + ")");
}

std::string describe_config(const RunInfo& run) {
  std::string text = run.config_path.empty() ? "config ?" : run.config_path;
  if (!run.config_sha256.empty()) text += " sha256 " + run.config_sha256.substr(0, 12);
  return text;
}

std::string counts_line(const Comparison& c) {
  const std::string failing =
      c.counts.failing_both == 0
          ? std::string()
          : fmt::format(" ({} of them error/timeout in both)", c.counts.failing_both);
  const std::string throttled = c.counts.throttled == 0
                                    ? std::string()
                                    : fmt::format(" ({} of them throttled)", c.counts.throttled);
  return fmt::format(
      "{} same, {} faster, {} slower, {} ambiguous{}, {} status changes, {} not ok in both{}; "
      "{} regressions; {} only in BASE, {} only in NEW",
      c.counts.same, c.counts.faster, c.counts.slower, c.counts.ambiguous, throttled,
      c.counts.status, c.counts.not_ok_both, failing, c.counts.regressions, c.only_base.size(),
      c.only_new.size());
}

ordered_json num_json(double v) {
  return json_detail::number_json<ordered_json>(v);
}

ordered_json side_json(const CaseResult& r) {
  ordered_json j;
  j["status"] = std::string(to_string(r.status));
  if (!r.reason.empty()) j["reason"] = r.reason;
  j["median_ms"] = num_json(r.time.median);
  j["p10_ms"] = num_json(r.time.p10);
  j["p90_ms"] = num_json(r.time.p90);
  j["n"] = r.time.n;
  j["tflops"] = num_json(r.tflops);
  j["peak_bytes"] = r.memory.peak_bytes;
  return j;
}

ordered_json run_json(const RunInfo& run) {
  ordered_json j;
  j["file"] = run.file;
  // Converted, not parsed again: both blocks came through parse_json_input with their file.
  j["device"] = ordered_json(run.device);
  j["tool"] = ordered_json(run.tool);
  j["target"] = run.target;
  j["config"] = {{"path", run.config_path}, {"sha256", run.config_sha256}};
  j["peak_tflops"] = num_json(run.peak_tflops);
  return j;
}

// The one-line explanation of a case's verdict (JUnit messages, JSON).
std::string explain(const CaseComparison& cc) {
  if (cc.kind == ChangeKind::status) {
    std::string text = fmt::format("status {}", cc.verdict);
    const std::string& reason = cc.next.status != Status::ok ? cc.next.reason : cc.base.reason;
    if (!reason.empty()) text += ": " + reason;
    return text;
  }
  std::string text = fmt::format("{}: median {} -> {} ms ({}), p10-p90 {} vs {} ({})", cc.verdict,
                                 sig(cc.base.time.median), sig(cc.next.time.median),
                                 percent(cc.rel_change), spread(cc.base.time), spread(cc.next.time),
                                 cc.intervals_overlap ? "overlap" : "disjoint");
  if (cc.rule == VerdictRule::utest) text += fmt::format(", U test p = {}", p_text(cc.p_value));
  return text;
}

// The backend columns of a case row: one backend, or with --pair NEW's and BASE's.
std::vector<std::string> backend_header(const Comparison& c) {
  if (c.by_pair()) return {"new backend", "base backend"};
  return {"backend"};
}
std::vector<std::string> backend_cells(const Comparison& c, const CaseComparison& cc) {
  if (c.by_pair()) return {cc.new_backend, cc.backend};
  return {cc.backend};
}

// "fa2 vs torch-flash, fa2 vs torch-cudnn".
std::string pairs_text(const Comparison& c) {
  std::vector<std::string> labels;
  for (const BackendPair& p : c.options.pairs) labels.push_back(p.label());
  return fmt::format("{}", fmt::join(labels, ", "));
}

std::string pair_label(const GeomeanRow& row) {
  return row.new_backend + " vs " + row.backend;
}
std::string dim_label(const GeomeanRow& row) {
  return row.D == 0 ? "all" : std::to_string(row.D);
}

// With --pair, which comparison a one-sided case is missing from: " (no fa2 case of this
// shape)"; nothing without --pair, where the id says it all.
std::string missing_partner(const std::vector<std::string>& partners, std::size_t i) {
  if (i >= partners.size()) return "";
  return fmt::format(" (no {} case of this shape)", partners[i]);
}

// A case id split into its backend and its shape.
std::pair<std::string, std::string> split_id(const std::string& id) {
  const auto slash = id.find('/');
  if (slash == std::string::npos) return {id, ""};
  return {id.substr(0, slash), id.substr(slash + 1)};
}

// The geomean rows on a terminal: one per backend.
std::string backend_geomean_table(const Comparison& c) {
  const std::string tl = tflops_label(c);
  std::vector<std::vector<std::string>> g;
  g.push_back({"geomean", "cases", "time x", tl + " x"});
  for (const GeomeanRow& row : c.geomean) {
    g.push_back(
        {row.backend, std::to_string(row.n), times(row.time_ratio), times(row.tflops_ratio)});
  }
  return aligned_columns(g, {false, true, true, true});
}

// With --pair: per pair, one row per head dim D and one over all D.
std::string pair_geomean_table(const Comparison& c) {
  const std::string tl = tflops_label(c);
  std::vector<std::vector<std::string>> g;
  g.push_back({"geomean", "D", "cases", "time x", tl + " x"});
  for (const GeomeanRow& row : c.geomean) {
    g.push_back({pair_label(row), dim_label(row), std::to_string(row.n), times(row.time_ratio),
                 times(row.tflops_ratio)});
  }
  return aligned_columns(g, {false, true, true, true, true});
}

std::string md_backend_cells(const Comparison& c, const CaseComparison& cc) {
  std::vector<std::string> cells;
  for (const std::string& b : backend_cells(c, cc)) cells.push_back(md_cell(b));
  return fmt::format("{}", fmt::join(cells, " | "));
}

// With --pair, under the run table: what is compared with what, and how to read the ratios.
std::string md_pairs_note(const Comparison& c) {
  return fmt::format(
      "Pairs, NEW backend vs BASE backend, matched by shape (B, H, H_kv, T_q, T_k, D, dtype, "
      "causal, window, layout): {}. time × < 1 and {} × > 1: the NEW backend is faster.\n\n",
      pairs_text(c), tflops_label(c));
}

std::string md_backend_geomean(const Comparison& c) {
  std::string out = "\n### Geometric mean per backend\n\n";
  out += fmt::format("| backend | cases | time × | {} × |\n|---|--:|--:|--:|\n", tflops_label(c));
  for (const GeomeanRow& row : c.geomean) {
    out += fmt::format("| {} | {} | {} | {} |\n", md_cell(row.backend), row.n,
                       times(row.time_ratio), times(row.tflops_ratio));
  }
  return out;
}

std::string md_pair_geomean(const Comparison& c) {
  std::string out = "\n### Geometric mean per pair and head dim\n\n";
  out +=
      fmt::format("| pair | D | cases | time × | {} × |\n|---|--:|--:|--:|--:|\n", tflops_label(c));
  for (const GeomeanRow& row : c.geomean) {
    out += fmt::format("| {} | {} | {} | {} | {} |\n", md_cell(pair_label(row)), dim_label(row),
                       row.n, times(row.time_ratio), times(row.tflops_ratio));
  }
  return out;
}

std::string csv_backend_fields(const Comparison& c, const CaseComparison& cc) {
  std::vector<std::string> fields;
  for (const std::string& b : backend_cells(c, cc)) fields.push_back(csv_field(b));
  return fmt::format("{}", fmt::join(fields, ","));
}

// A CSV row for a case on one side only (verdict only_base or only_new), without numbers. With
// --pair the backend columns name the pair: the case's backend and the partner that lacks it.
std::string csv_one_sided(const Comparison& c, const std::string& id, bool in_base,
                          const std::vector<std::string>& partners, std::size_t i) {
  const auto [backend, shape] = split_id(id);
  std::string backends = csv_field(backend);
  if (c.by_pair()) {
    const std::string partner = i < partners.size() ? partners[i] : "";
    backends = in_base ? csv_field(partner) + "," + csv_field(backend)
                       : csv_field(backend) + "," + csv_field(partner);
  }
  return fmt::format("{},{},{},{},false,,,,,,,,,,,,,,,,,,\n", csv_field(id), backends,
                     csv_field(shape), in_base ? "only_base" : "only_new");
}

// Cases on one side only: their ids; with --pair objects that also name the pair.
ordered_json one_sided_json(const Comparison& c, const std::vector<std::string>& ids, bool in_base,
                            const std::vector<std::string>& partners) {
  if (!c.by_pair()) return ids;
  ordered_json out = ordered_json::array();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string backend = split_id(ids[i]).first;
    const std::string partner = i < partners.size() ? partners[i] : "";
    out.push_back({{"id", ids[i]},
                   {"new_backend", in_base ? partner : backend},
                   {"base_backend", in_base ? backend : partner}});
  }
  return out;
}

// Where a side of a case comes from: the file; with --pair "torch-flash in FILE".
std::string side_source(const Comparison& c, const std::string& backend, const RunInfo& run) {
  return c.by_pair() ? backend + " in " + run.file : run.file;
}

// The summary headline's subject: "NEW vs BASE" files; with --pair the pairs, then the files
// (one name when both sides come from one file).
std::string summary_subject(const Comparison& c) {
  const std::string files = fmt::format("{} vs {}", c.next.file, c.base.file);
  if (!c.by_pair()) return files;
  if (c.base.file == c.next.file) return fmt::format("{} in {}", pairs_text(c), c.next.file);
  return fmt::format("{}; {}", pairs_text(c), files);
}

// A geomean row; with --pair it names both backends and the head dim (null: every D).
ordered_json geomean_json(const Comparison& c, const GeomeanRow& row) {
  ordered_json j;
  if (c.by_pair()) {
    j["new_backend"] = row.new_backend;
    j["base_backend"] = row.backend;
    j["D"] = row.D == 0 ? ordered_json(nullptr) : ordered_json(row.D);
  } else {
    j["backend"] = row.backend;
  }
  j["cases"] = row.n;
  j["time_ratio"] = num_json(row.time_ratio);
  j["tflops_ratio"] = num_json(row.tflops_ratio);
  return j;
}

}  // namespace

std::string compare_table_text(const Comparison& c) {
  std::string out;
  out += fmt::format("BASE  {}: {}; {}; {}\n", c.base.file, describe_device(c.base),
                     describe_tool(c.base), describe_config(c.base));
  out += fmt::format("NEW   {}: {}; {}; {}\n", c.next.file, describe_device(c.next),
                     describe_tool(c.next), describe_config(c.next));
  out += fmt::format(
      "threshold {:g}%: beyond it, faster/slower when significant, else ambiguous; significant "
      "means (rule utest, both runs with >= {} raw samples) Mann-Whitney U p < {:g}, else (rule "
      "threshold) disjoint p10-p90 intervals\n",
      c.options.threshold * 100, kUTestMinSamples, c.options.alpha);
  const std::string tl = tflops_label(c);
  if (c.by_pair()) {
    out += fmt::format(
        "pairs (NEW backend vs BASE backend, matched by shape; time x < 1 and {} x > 1: the NEW "
        "backend is faster): {}\n",
        tl, pairs_text(c));
  }
  for (const std::string& w : c.warnings) out += w + "\n";
  for (const std::string& f : c.failures) out += "failing: " + f + "\n";
  out += "\n";

  std::vector<std::vector<std::string>> rows;
  rows.push_back(backend_header(c));
  rows[0].insert(rows[0].end(),
                 {"shape", "BASE ms", "p10-p90", "NEW ms", "p10-p90", "change", "time x",
                  "BASE " + tl, "NEW " + tl, tl + " x", "peak x", "p", "rule", "verdict"});
  for (const CaseComparison& cc : c.cases) {
    rows.push_back(backend_cells(c, cc));
    rows.back().insert(
        rows.back().end(),
        {cc.base.c.shape_key(), ms_or_status(cc.base),
         cc.base.status == Status::ok ? spread(cc.base.time) : "-", ms_or_status(cc.next),
         cc.next.status == Status::ok ? spread(cc.next.time) : "-", percent(cc.rel_change),
         times(cc.time_ratio), sig(shown_tflops(c, cc.base, c.base)),
         sig(shown_tflops(c, cc.next, c.next)), times(cc.tflops_ratio), times(cc.peak_ratio),
         p_text(cc.p_value), std::string(to_string(cc.rule)),
         cc.verdict + (cc.regression ? " !" : "")});
  }
  std::vector<bool> right(backend_header(c).size(), false);
  right.insert(right.end(), {false, true, true, true, true, true, true, true, true, true, true,
                             true, false, false});
  out += aligned_columns(rows, right);

  if (!c.geomean.empty()) {
    out += "\n";
    out += c.by_pair() ? pair_geomean_table(c) : backend_geomean_table(c);
  }
  if (!c.only_base.empty() || !c.only_new.empty()) out += "\n";
  for (std::size_t i = 0; i < c.only_base.size(); ++i) {
    out += fmt::format("only in BASE: {}{}\n", c.only_base[i],
                       missing_partner(c.only_base_partner, i));
  }
  for (std::size_t i = 0; i < c.only_new.size(); ++i) {
    out +=
        fmt::format("only in NEW:  {}{}\n", c.only_new[i], missing_partner(c.only_new_partner, i));
  }
  out += "\nverdicts: " + counts_line(c) + "\n";
  return out;
}

std::string compare_md_text(const Comparison& c) {
  std::string out = "## fa2bench compare\n\n";
  out += "| run | file | device | fa2bench | config |\n|---|---|---|---|---|\n";
  for (const auto& [label, run] : {std::pair<const char*, const RunInfo*>{"BASE", &c.base},
                                   std::pair<const char*, const RunInfo*>{"NEW", &c.next}}) {
    out += fmt::format("| {} | `{}` | {} | {} | {} |\n", label, md_cell(run->file),
                       md_cell(describe_device(*run)), md_cell(describe_tool(*run)),
                       md_cell(describe_config(*run)));
  }
  out += "\n";
  for (const std::string& w : c.warnings) out += "> " + md_cell(w) + "\n";
  for (const std::string& f : c.failures) out += "> **failing**: " + md_cell(f) + "\n";
  if (!c.warnings.empty() || !c.failures.empty()) out += "\n";
  out += fmt::format(
      "Threshold {:g}% on the median time; beyond it, a significant change is faster/slower, "
      "else ambiguous. Significant: with ≥ {} raw samples in both runs (rule `utest`), the "
      "Mann-Whitney U test's two-sided p < {:g}; otherwise (rule `threshold`) disjoint p10–p90 "
      "intervals.\n\n",
      c.options.threshold * 100, kUTestMinSamples, c.options.alpha);

  const std::string tl = tflops_label(c);
  if (c.by_pair()) out += md_pairs_note(c);
  out += fmt::format(
      "| {0} | shape | BASE ms (p10–p90) | NEW ms (p10–p90) | change | time × | {1} BASE → "
      "NEW | {1} × | peak × | p | rule | verdict |\n",
      fmt::join(backend_header(c), " | "), tl);
  out += c.by_pair() ? "|---|---|---|" : "|---|---|";
  out += "--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n";
  for (const CaseComparison& cc : c.cases) {
    auto side = [](const CaseResult& r) {
      if (r.status != Status::ok) return std::string(to_string(r.status));
      return fmt::format("{} ({})", sig(r.time.median), spread(r.time));
    };
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} → {} | {} | {} | {} | {} | {}{} |\n",
                       md_backend_cells(c, cc), md_cell(cc.base.c.shape_key()), side(cc.base),
                       side(cc.next), percent(cc.rel_change), times(cc.time_ratio),
                       sig(shown_tflops(c, cc.base, c.base)), sig(shown_tflops(c, cc.next, c.next)),
                       times(cc.tflops_ratio), times(cc.peak_ratio), p_text(cc.p_value),
                       to_string(cc.rule), cc.regression ? "**" + cc.verdict + "**" : cc.verdict,
                       cc.regression ? " ❌" : "");
  }
  out += c.by_pair() ? md_pair_geomean(c) : md_backend_geomean(c);
  out += "\n**Verdicts:** " + counts_line(c) + "\n";
  if (c.only_base.empty() && c.only_new.empty()) return out;
  // With --pair both sides may be one file; what is missing is a backend's case, not a file's.
  out += c.by_pair() ? "\n### Cases on one side only\n\n" : "\n### Cases in one file only\n\n";
  for (std::size_t i = 0; i < c.only_base.size(); ++i) {
    out += fmt::format("- only in BASE: `{}`{}\n", c.only_base[i],
                       missing_partner(c.only_base_partner, i));
  }
  for (std::size_t i = 0; i < c.only_new.size(); ++i) {
    out += fmt::format("- only in NEW: `{}`{}\n", c.only_new[i],
                       missing_partner(c.only_new_partner, i));
  }
  return out;
}

std::string compare_csv_text(const Comparison& c) {
  std::string out = c.by_pair() ? "id,new_backend,base_backend," : "id,backend,";
  out +=
      "shape,verdict,regression,base_status,new_status,base_median_ms,base_p10_ms,"
      "base_p90_ms,new_median_ms,new_p10_ms,new_p90_ms,rel_change,time_ratio,base_tflops,"
      "new_tflops,tflops_ratio,base_peak_bytes,new_peak_bytes,peak_ratio,rule,p_value\n";
  for (const CaseComparison& cc : c.cases) {
    const CaseResult& b = cc.base;
    const CaseResult& n = cc.next;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_field(cc.id), csv_backend_fields(c, cc), csv_field(b.c.shape_key()),
                       csv_field(cc.verdict), cc.regression ? "true" : "false", to_string(b.status),
                       to_string(n.status), csv_number(b.time.median), csv_number(b.time.p10),
                       csv_number(b.time.p90), csv_number(n.time.median), csv_number(n.time.p10),
                       csv_number(n.time.p90), csv_number(cc.rel_change), csv_number(cc.time_ratio),
                       csv_number(b.tflops), csv_number(n.tflops), csv_number(cc.tflops_ratio),
                       b.memory.peak_bytes, n.memory.peak_bytes, csv_number(cc.peak_ratio),
                       to_string(cc.rule), csv_number(cc.p_value));
  }
  // Cases on one side only: listed with verdict only_base / only_new and no numbers.
  for (std::size_t i = 0; i < c.only_base.size(); ++i) {
    out += csv_one_sided(c, c.only_base[i], true, c.only_base_partner, i);
  }
  for (std::size_t i = 0; i < c.only_new.size(); ++i) {
    out += csv_one_sided(c, c.only_new[i], false, c.only_new_partner, i);
  }
  return out;
}

nlohmann::ordered_json compare_json(const Comparison& c) {
  ordered_json j;
  j["schema"] = "fa2bench/compare/1";
  j["threshold"] = c.options.threshold;
  j["alpha"] = c.options.alpha;
  j["normalize"] = c.options.normalize;  // true: --normalize peak
  if (c.by_pair()) {
    ordered_json pairs = ordered_json::array();
    for (const BackendPair& p : c.options.pairs)
      pairs.push_back({{"new", p.next}, {"base", p.base}});
    j["pairs"] = std::move(pairs);
  }
  j["base"] = run_json(c.base);
  j["new"] = run_json(c.next);
  j["warnings"] = c.warnings;
  j["failures"] = c.failures;
  ordered_json cases = ordered_json::array();
  for (const CaseComparison& cc : c.cases) {
    ordered_json e;
    e["id"] = cc.id;
    if (c.by_pair()) {
      e["new_backend"] = cc.new_backend;
      e["base_backend"] = cc.backend;
    } else {
      e["backend"] = cc.backend;
    }
    e["shape"] = cc.base.c.shape_key();
    e["verdict"] = cc.verdict;
    e["kind"] = std::string(to_string(cc.kind));
    e["regression"] = cc.regression;
    e["rel_change"] = num_json(cc.rel_change);
    e["intervals_overlap"] = cc.intervals_overlap;
    e["rule"] = std::string(to_string(cc.rule));
    e["p_value"] = num_json(cc.p_value);
    e["throttled"] = cc.throttled;
    e["time_ratio"] = num_json(cc.time_ratio);
    e["tflops_ratio"] = num_json(cc.tflops_ratio);
    e["peak_ratio"] = num_json(cc.peak_ratio);
    e["base"] = side_json(cc.base);
    e["new"] = side_json(cc.next);
    cases.push_back(std::move(e));
  }
  j["cases"] = std::move(cases);
  j["only_base"] = one_sided_json(c, c.only_base, true, c.only_base_partner);
  j["only_new"] = one_sided_json(c, c.only_new, false, c.only_new_partner);
  ordered_json g = ordered_json::array();
  for (const GeomeanRow& row : c.geomean) g.push_back(geomean_json(c, row));
  j["geomean"] = std::move(g);
  j["counts"] = {{"same", c.counts.same},
                 {"faster", c.counts.faster},
                 {"slower", c.counts.slower},
                 {"ambiguous", c.counts.ambiguous},
                 {"status", c.counts.status},
                 {"not_ok_both", c.counts.not_ok_both},
                 {"failing_both", c.counts.failing_both},
                 {"regressions", c.counts.regressions},
                 {"unusable", c.counts.unusable},
                 {"throttled", c.counts.throttled},
                 {"only_base", c.only_base.size()},
                 {"only_new", c.only_new.size()}};
  return j;
}

std::string compare_junit_text(const Comparison& c) {
  using Outcome = JunitCase::Outcome;
  std::vector<JunitCase> cases;
  for (const CaseComparison& cc : c.cases) {
    // With --pair the class is the pair, as given on the command line ("fa2=torch-flash").
    const std::string group = c.by_pair() ? cc.new_backend + "=" + cc.backend : cc.backend;
    JunitCase jc{
        "fa2bench.compare." + group, cc.base.c.shape_key(), Outcome::passed, {}, {}, explain(cc)};
    if (cc.regression) {
      jc.outcome = Outcome::failure;
      jc.message = explain(cc);
      jc.type = cc.kind == ChangeKind::status ? "status" : cc.verdict;
      jc.text = "BASE " + side_source(c, cc.backend, c.base) + "\nNEW " +
                side_source(c, cc.new_backend, c.next);
    }
    cases.push_back(std::move(jc));
  }
  // The run-level failures (NEW unusable, cases missing, nothing compared) fail the job too.
  for (const std::string& f : c.failures)
    cases.push_back({"fa2bench.compare.gate", f, Outcome::failure, f, "gate", {}});
  return junit_document("fa2bench.compare", cases, kNaN);
}

std::string compare_summary_md_text(const Comparison& c) {
  std::string head;
  if (c.has_regression()) {
    head =
        fmt::format("### ❌ fa2bench compare: {} regression{}{} ({})\n\n", c.counts.regressions,
                    c.counts.regressions == 1 ? "" : "s",
                    c.failures.empty() ? "" : fmt::format(", {} more failing", c.failures.size()),
                    summary_subject(c));
    for (const CaseComparison& cc : c.cases) {
      if (cc.regression) head += fmt::format("- `{}`: {}\n", cc.id, md_cell(explain(cc)));
    }
    for (const std::string& f : c.failures) head += "- " + md_cell(f) + "\n";
    head += "\n";
  } else {
    head = fmt::format("### ✅ fa2bench compare: no regression ({})\n\n", summary_subject(c));
  }
  return head + compare_md_text(c);
}

}  // namespace fa2b
