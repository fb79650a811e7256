// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/attention_mask.h"
#include "report/export_formats.h"
#include "report/report.h"

namespace fa2b {
namespace {

// The causal column, with the sliding window when there is one ("no, window [16, 16]").
std::string causal_cell(const Case& c) {
  const std::string causal = c.causal ? "yes" : "no";
  return c.window.bounded() ? causal + ", window " + window_text(c.window) : causal;
}

// nvbench prints times with the unit that keeps 1-3 digits before the point.
std::string nv_time(double ms) {
  if (!std::isfinite(ms)) return "-";
  if (ms >= 1000.0) return fmt::format("{:.3f} s", ms / 1000.0);
  if (ms >= 1.0) return fmt::format("{:.3f} ms", ms);
  if (ms >= 1e-3) return fmt::format("{:.3f} us", ms * 1e3);
  return fmt::format("{:.3f} ns", ms * 1e6);
}

std::string nv_bytes(std::int64_t b) {
  return fmt::format("{:.3f} MiB", static_cast<double>(b) / (1024.0 * 1024.0));
}

}  // namespace

std::string nvbench_md_text(const ResultSet& rs) {
  std::string out = "# Benchmark Results\n";
  // Sweeps in the order they first appear, as nvbench lists benchmarks.
  std::vector<std::string> sweeps;
  std::map<std::string, std::vector<const CaseResult*>> by_sweep;
  for (const CaseResult& r : rs.cases) {
    if (by_sweep.find(r.c.sweep) == by_sweep.end()) sweeps.push_back(r.c.sweep);
    by_sweep[r.c.sweep].push_back(&r);
  }
  const std::string device = block_field<std::string>(rs.device, "name", rs.target);
  const int index = block_field<int>(rs.device, "index", 0);
  for (const std::string& sweep : sweeps) {
    out += fmt::format("\n## {}\n\n### [{}] {}\n\n", md_cell(sweep), index, md_cell(device));
    out +=
        "| backend | B | H | H_kv | T_q | T_k | D | dtype | causal | layout | mode | Samples | "
        "GPU Time | Noise | TFLOP/s | Peak Mem |\n";
    out += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const CaseResult* r : by_sweep[sweep]) {
      const Case& c = r->c;
      out +=
          fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | ",
                      md_cell(c.backend), c.B, c.H, c.H_kv, c.T_q, c.T_k, c.D, to_string(c.dtype),
                      causal_cell(c), to_string(c.layout), to_string(c.mode));
      if (r->status != Status::ok) {
        out += fmt::format("0 | {} | - | - | - |\n", md_cell(std::string(to_string(r->status))));
        continue;
      }
      const double noise = r->time.mean > 0 && std::isfinite(r->time.stdev)
                               ? 100.0 * r->time.stdev / r->time.mean
                               : NAN;
      out += fmt::format("{} | {} | {} | {} | {} |\n", r->time.n, nv_time(r->time.median),
                         std::isfinite(noise) ? fmt::format("{:.2f}%", noise) : "-",
                         std::isfinite(r->tflops) ? fmt::format("{:.1f}", r->tflops) : "-",
                         r->memory.recorded ? nv_bytes(r->memory.peak_bytes) : "-");
    }
  }
  return out;
}

}  // namespace fa2b
