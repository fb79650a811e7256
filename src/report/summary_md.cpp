// SPDX-License-Identifier: Apache-2.0
// summary.md: per sweep a table of shapes x backends, then each backend's speedup and memory
// reduction against the baseline, then the checks.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "io/atomic_file.h"
#include "report/report.h"

namespace fa2b {
namespace {

std::string sig(double v) {
  if (std::isnan(v)) return "—";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::fabs(v) >= 1000) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

// Milliseconds: three decimals, more significant digits below 0.1 ms.
std::string ms(double v) {
  if (!std::isfinite(v) || v < 0.1) return sig(v);
  return fmt::format("{:.3f}", v);
}

std::string tflops(double v) {
  if (!std::isfinite(v) || v < 10) return sig(v);
  return fmt::format("{:.1f}", v);
}

// A fraction of a peak (mfu, bw_frac): three decimals, "—" where unknown.
std::string fraction(double v) {
  return std::isfinite(v) ? fmt::format("{:.3f}", v) : "—";
}

std::string mib(std::int64_t bytes) {
  return fmt::format("{:.1f}", bytes / 1048576.0);
}

std::string json_text(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string label(const Case& c) {
  return c.role.empty() ? c.backend : c.role;
}

bool is_baseline(const Case& c, const std::string& baseline) {
  return c.role == baseline || c.backend == baseline;
}

std::string status_text(const CaseResult& r) {
  std::string s(to_string(r.status));
  if (r.status != Status::ok && !r.reason.empty()) s += ": " + r.reason;
  return s;
}

// "Memory reduction: 86.7%, Speedup: 3.32x" of `r` against `base`, or why there is none.
std::string comparison(const CaseResult& r, const CaseResult* base) {
  if (!base) return "no baseline case";
  if (base->status != Status::ok) return fmt::format("baseline {}", to_string(base->status));
  if (r.status != Status::ok) return std::string(to_string(r.status));
  std::string mem = "—", speed = "—";
  if (base->memory.peak_bytes > 0) {
    const double red = 100.0 * (1.0 - static_cast<double>(r.memory.peak_bytes) /
                                          static_cast<double>(base->memory.peak_bytes));
    mem = fmt::format("{:.1f}%", red);
  }
  if (r.time.median > 0 && std::isfinite(base->time.median))
    speed = fmt::format("{:.2f}x", base->time.median / r.time.median);
  return fmt::format("Memory reduction: {}, Speedup: {}", mem, speed);
}

struct SweepTable {
  std::vector<std::string> shapes, backends;
  std::map<std::pair<std::string, std::string>, const CaseResult*> cell;  // (shape, backend)
  std::map<std::string, const CaseResult*> baseline;                      // shape -> case
};

void write_sweep(std::string& out, const std::string& sweep, const SweepTable& t,
                 const std::string& baseline) {
  // The fractions of the device's peaks get a column only where some case has one: none on
  // the CPU target or a GPU without peaks, where it would be a column of dashes.
  bool fractions = false;
  for (const auto& [key, r] : t.cell)
    fractions = fractions || std::isfinite(r->mfu) || std::isfinite(r->bw_frac);
  out += fmt::format("## Sweep `{}`\n\n| Shape |", sweep.empty() ? "(unnamed)" : sweep);
  std::string rule = "|---|";
  for (const std::string& b : t.backends) {
    out += fmt::format(" {0} ms | {0} TFLOP/s |", md_cell(b));
    rule += "---:|---:|";
    if (fractions) {
      out += fmt::format(" {} MFU / BW frac |", md_cell(b));
      rule += "---:|";
    }
    out += fmt::format(" {0} peak MiB | {0} status |", md_cell(b));
    rule += "---:|---|";
  }
  out += "\n" + rule + "\n";
  for (const std::string& shape : t.shapes) {
    out += "| " + md_cell(shape) + " |";
    for (const std::string& b : t.backends) {
      auto it = t.cell.find({shape, b});
      if (it == t.cell.end()) {
        out += fractions ? " | | | | |" : " | | | |";
        continue;
      }
      const CaseResult& r = *it->second;
      const bool ok = r.status == Status::ok;
      out += fmt::format(" {} | {} |", ok ? ms(r.time.median) : "—", ok ? tflops(r.tflops) : "—");
      if (fractions) out += fmt::format(" {} / {} |", fraction(r.mfu), fraction(r.bw_frac));
      out +=
          fmt::format(" {} | {} |", ok ? mib(r.memory.peak_bytes) : "—", md_cell(status_text(r)));
    }
    out += "\n";
  }
  out += "\n";
  if (t.baseline.empty()) {
    out += fmt::format("No `{}` case in this sweep: no speedup or memory reduction.\n\n", baseline);
    return;
  }
  out += fmt::format("Against `{}`:\n\n", baseline);
  for (const std::string& shape : t.shapes) {
    auto base_it = t.baseline.find(shape);
    const CaseResult* base = base_it == t.baseline.end() ? nullptr : base_it->second;
    for (const std::string& b : t.backends) {
      auto it = t.cell.find({shape, b});
      if (it == t.cell.end() || it->second == base) continue;
      out +=
          fmt::format("- {}, {}: {}\n", md_cell(shape), md_cell(b), comparison(*it->second, base));
    }
  }
  out += "\n";
}

}  // namespace

std::string summary_md_text(const ResultSet& rs, const std::string& baseline) {
  std::string out = "# fa2bench results\n\n";
  std::string device = json_text(rs.device, "name");
  const std::string cc = json_text(rs.device, "cc");
  if (!cc.empty()) device += " (cc " + cc + ")";
  out += fmt::format("- Device: {}\n", device.empty() ? "unknown" : device);
  out += fmt::format("- Target: {}\n", rs.target.empty() ? "unknown" : rs.target);
  out += fmt::format(
      "- Config: {}{}\n", rs.config_path.empty() ? "unknown" : rs.config_path,
      rs.config_sha256.empty() ? "" : fmt::format(" (sha256 {})", rs.config_sha256.substr(0, 12)));
  const std::string git = json_text(rs.tool, "git");
  const std::string version = json_text(rs.tool, "version");
  const std::string build = json_text(rs.tool, "build");
  out += fmt::format("- Git: {}", git.empty() ? "unknown" : git);
  if (!version.empty())
    out += fmt::format(" (fa2bench {}{})", version, build.empty() ? "" : ", " + build);
  out += "\n";
  std::size_t counts[5] = {0, 0, 0, 0, 0};
  for (const CaseResult& r : rs.cases) ++counts[static_cast<int>(r.status)];
  out += fmt::format(
      "- Cases: {} (ok {}, unsupported {}, oom {}, error {}, timeout {}); wall {} s\n",
      rs.cases.size(), counts[0], counts[1], counts[2], counts[3], counts[4], sig(rs.wall_s));
  if (rs.interrupted) out += "- **Interrupted**: the sweep stopped before its last case\n";
  out +=
      "\nTFLOP/s by flash-attention's convention (forward 4·B·H·T_q·T_k·D, halved when "
      "causal; with a sliding window 4·B·H·D per visible (query row, key) pair); peak is the "
      "tracked allocations during the case, inputs and outputs included; MiB = 2^20 "
      "bytes. MFU / BW frac (where the device has peaks): TFLOP/s over its dense tensor peak "
      "for the dtype, GB/s over its data-sheet memory bandwidth. Each case's `repro` in "
      "results.json and results.csv is the command line that re-runs it alone.\n\n";

  std::vector<std::string> sweeps;
  std::map<std::string, SweepTable> tables;
  for (const CaseResult& r : rs.cases) {
    auto [it, inserted] = tables.try_emplace(r.c.sweep);
    if (inserted) sweeps.push_back(r.c.sweep);
    SweepTable& t = it->second;
    const std::string shape = r.c.shape_key();
    const std::string b = label(r.c);
    if (std::find(t.shapes.begin(), t.shapes.end(), shape) == t.shapes.end())
      t.shapes.push_back(shape);
    if (std::find(t.backends.begin(), t.backends.end(), b) == t.backends.end())
      t.backends.push_back(b);
    t.cell.try_emplace({shape, b}, &r);
    if (is_baseline(r.c, baseline)) t.baseline.try_emplace(shape, &r);
  }
  for (const std::string& s : sweeps) write_sweep(out, s, tables[s], baseline);
  if (rs.cases.empty()) out += "No cases.\n\n";

  out += "## Checks\n\n";
  if (rs.checks.empty()) {
    out += "No checks.\n";
    return out;
  }
  out += "| Verdict | Name | Measured | Threshold | Detail |\n|---|---|---:|---|---|\n";
  for (const Verdict& v : rs.checks) {
    std::string verdict(to_string(v.verdict));
    if (v.verdict == VerdictKind::fail || v.verdict == VerdictKind::error)
      verdict = "**" + verdict + "**";
    out += fmt::format("| {} | {} | {} | {} | {} |\n", verdict, md_cell(v.name), sig(v.measured),
                       md_cell(v.threshold), md_cell(v.detail));
  }
  return out;
}

void write_summary_md(const ResultSet& rs, const std::string& path, const std::string& baseline) {
  write_text_file_atomic(path, summary_md_text(rs, baseline));
}

}  // namespace fa2b
