// SPDX-License-Identifier: Apache-2.0
#include "cli/wall_summary.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace fa2b {

std::string wall_summary_line(const ResultSet& rs,
                              const std::vector<std::optional<CaseResult>>& finished_before,
                              int workers_started) {
  std::set<std::string> earlier;
  for (const auto& r : finished_before)
    if (r) earlier.insert(r->c.sweep + "\n" + r->c.id());
  double timed_ms = 0, setup = 0, verify = 0, timing = 0;
  for (const CaseResult& r : rs.cases) {
    if (earlier.count(r.c.sweep + "\n" + r.c.id())) continue;
    // The samples the statistics used: n of them, mean ms each.
    if (r.status == Status::ok && r.time.n > 0 && std::isfinite(r.time.mean))
      timed_ms += r.time.mean * r.time.n;
    if (std::isfinite(r.wall_ms.total)) {
      setup += r.wall_ms.setup;
      verify += r.wall_ms.verify;
      timing += r.wall_ms.timing;
    }
  }
  std::string line = fmt::format(
      "timed {:.1f} s of {:.1f} s wall (in the cases: setup {:.1f} s, verify {:.1f} s, timing "
      "{:.1f} s)",
      timed_ms / 1e3, rs.wall_s, setup / 1e3, verify / 1e3, timing / 1e3);
  if (workers_started >= 0) line += fmt::format("; workers started: {}", workers_started);
  return line;
}

}  // namespace fa2b
