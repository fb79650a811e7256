// SPDX-License-Identifier: Apache-2.0
#include "cli/tables.h"

#include <fmt/format.h>

#include <cmath>

namespace fa2b {

std::string human_bytes(double bytes) {
  // A size is never negative: one that is came from an overflow (or a hand-edited file).
  if (!(bytes >= 0) || !std::isfinite(bytes)) return "invalid";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

static std::string num(double v, const char* spec) {
  if (std::isnan(v)) return "-";
  return fmt::format(fmt::runtime(spec), v);
}

void print_case_table(const std::vector<CaseResult>& cases) {
  fmt::print("\n{:<11} {:<40} {:<11} {:>10} {:>9} {:>11} {:>10}\n", "backend", "shape", "status",
             "median ms", "TFLOP/s", "peak", "max err");
  for (const CaseResult& r : cases) {
    const bool ok = r.status == Status::ok;
    fmt::print("{:<11} {:<40} {:<11} {:>10} {:>9} {:>11} {:>10}\n", r.c.backend, r.c.shape_key(),
               to_string(r.status), ok ? num(r.time.median, "{:.4g}") : "-",
               ok ? num(r.tflops, "{:.1f}") : "-",
               ok ? human_bytes(static_cast<double>(r.memory.peak_bytes)) : "-",
               ok && r.accuracy.checked ? num(r.accuracy.max_abs_err, "{:.2e}") : "-");
    if (!ok && !r.reason.empty()) fmt::print("    {}\n", r.reason);
  }
}

void print_verdict_table(const std::vector<Verdict>& verdicts) {
  if (verdicts.empty()) {
    fmt::print("\nno checks in this config\n");
    return;
  }
  fmt::print("\n{:<6} {:<44} {:>12} {:>12}\n", "check", "name", "measured", "threshold");
  for (const Verdict& v : verdicts) {
    fmt::print("{:<6} {:<44} {:>12} {:>12}\n", to_string(v.verdict), v.name,
               num(v.measured, "{:.4g}"), v.threshold);
    if (v.verdict != VerdictKind::pass && !v.detail.empty()) fmt::print("    {}\n", v.detail);
  }
  int pass = 0, deferred = 0, skipped = 0;
  for (const Verdict& v : verdicts) {
    pass += v.verdict == VerdictKind::pass ? 1 : 0;
    deferred += v.verdict == VerdictKind::deferred ? 1 : 0;
    skipped += v.verdict == VerdictKind::skipped ? 1 : 0;
  }
  fmt::print("{} of {} checks passed", pass, verdicts.size() - deferred - skipped);
  if (skipped > 0) fmt::print(", {} skipped (premise does not hold on this device)", skipped);
  if (deferred > 0) fmt::print(" ({} deferred to the merge of the shards)", deferred);
  fmt::print("\n");
}

void print_gate_problems(const std::vector<GateProblem>& problems) {
  constexpr std::size_t kShown = 20;  // a sweep of 10 000 crashed cases needs no 10 000 lines
  for (std::size_t i = 0; i < problems.size() && i < kShown; ++i)
    fmt::print(stderr, "fa2bench: {}\n", problems[i].reason);
  if (problems.size() > kShown)
    fmt::print(stderr, "fa2bench: ... and {} more problems\n", problems.size() - kShown);
}

}  // namespace fa2b
